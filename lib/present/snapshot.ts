/**
 * The Presenter's copy of the block array, updated in place. `applyDiff` copies the array and the
 * changed block on every diff, which is right for UIs that compare by reference but makes a long
 * message quadratic for a consumer that sees every diff; the Presenter owns its blocks (it copies
 * what it receives), so it may mutate them.
 * @internal
 * @module
 */
import type { Block, BlockDiff } from '../types.js'
import { checkBlock, checkDiff, setParam } from '../diff/validate.js'

/**
 * A private copy of a block, so in-place updates never reach the sender's objects. Checks the
 * block first (`ERR_INVALID_DIFF` naming `diff`). The params copy is a plain object with the
 * same own properties. @internal
 * @group Diffs
 */
export function copyBlock(b: unknown, diff: unknown): Block {
  checkBlock(b, diff)
  return b.type === 'tool_use' ? { ...b, params: { ...b.params } } : { ...b }
}

/**
 * Applies a diff already checked by `checkDiff` against `blocks` to them, in place: a param is
 * always written as an own property. @internal
 * @group Diffs
 */
export function applyChecked(blocks: Block[], diff: BlockDiff): void {
  switch (diff.op) {
    case 'add':
      blocks.push(copyBlock(diff.block, diff))
      return
    case 'truncate':
      blocks.length = diff.length
      return
    case 'replace':
      blocks[diff.index] = copyBlock(diff.block, diff)
      return
    case 'complete':
      blocks[diff.index]!.partial = false
      return
    default: {
      const b = blocks[diff.index]!
      if (b.type === 'text') b.content = diff.op === 'set' ? diff.value : b.content + diff.text
      else if (b.type === 'reasoning') b.reasoning = diff.op === 'set' ? diff.value : b.reasoning + diff.text
      else {
        const name = diff.path.slice(7)
        setParam(b.params, name, diff.op === 'set' ? diff.value : b.params[name] + diff.text)
      }
    }
  }
}

/**
 * Applies one diff to `blocks` in place. Throws a TagstreamError `ERR_INVALID_DIFF` (having changed
 * nothing) when the diff does not fit, as {@link applyDiff} does.
 * @internal
 * @group Diffs
 */
export function applyInPlace(blocks: Block[], diff: BlockDiff): void {
  checkDiff(diff, blocks)
  applyChecked(blocks, diff)
}
