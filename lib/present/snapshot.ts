/**
 * The Presenter's copy of the block array, updated in place. `applyDiff` copies the array and the
 * changed block on every diff, which is right for UIs that compare by reference but makes a long
 * message quadratic for a consumer that sees every diff; the Presenter owns its blocks (it copies
 * what it receives), so it may mutate them.
 * @internal
 * @module
 */
import type { Block, BlockDiff } from '../types.js'
import { setParam } from '../diff/validate.js'

/**
 * A private copy of a block that `checkBlock` accepted, so in-place updates never reach the
 * sender's objects (or a copy handed out). The params copy is a plain object with the same own
 * properties. @internal
 * @group Diffs
 */
export function cloneBlock(b: Block): Block {
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
      blocks.push(cloneBlock(diff.block))
      return
    case 'truncate':
      blocks.length = diff.length
      return
    case 'replace':
      blocks[diff.index] = cloneBlock(diff.block)
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
