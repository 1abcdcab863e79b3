/**
 * The Presenter's copy of the block array, updated in place. `applyDiff` copies the array and the
 * changed block on every diff, which is right for UIs that compare by reference but makes a long
 * message quadratic for a consumer that sees every diff; the Presenter owns its blocks (it copies
 * what it receives), so it may mutate them.
 * @internal
 * @module
 */
import type { Block, BlockDiff } from '../types.js'
import { TagstreamError } from '../errors.js'
import { fieldAt, pathFits } from '../diff/diff.js'

function bad(diff: unknown, why: string): never {
  throw new TagstreamError('ERR_INVALID_DIFF', `cannot apply ${safeJson(diff)}: ${why}`, { diff })
}

function safeJson(v: unknown): string {
  try {
    const s = JSON.stringify(v)
    return s === undefined ? String(v) : s.length > 200 ? s.slice(0, 200) + '…' : s
  } catch {
    return String(v)
  }
}

/** A private copy of a block, so in-place updates never reach the sender's objects. @internal */
export function copyBlock(b: unknown, diff: unknown): Block {
  if (b === null || typeof b !== 'object') return bad(diff, 'the block is not an object')
  const block = b as Block
  switch (block.type) {
    case 'text':
      if (typeof block.content !== 'string') return bad(diff, 'a text block needs a string content')
      return { ...block }
    case 'reasoning':
      if (typeof block.reasoning !== 'string') return bad(diff, 'a reasoning block needs a string reasoning')
      return { ...block }
    case 'tool_use':
      if (typeof block.name !== 'string' || block.params === null || typeof block.params !== 'object') {
        return bad(diff, 'a tool_use block needs a name and params')
      }
      return { ...block, params: { ...block.params } }
    default:
      return bad(diff, 'unknown block type')
  }
}

function readPath(block: Block, path: unknown, diff: unknown): string | undefined {
  return pathFits(block, path) ? fieldAt(block, path) : bad(diff, `no string at path ${safeJson(path)} of a ${block.type} block`)
}

function writePath(block: Block, path: string, value: string): void {
  if (block.type === 'text') block.content = value
  else if (block.type === 'reasoning') block.reasoning = value
  else block.params[path.slice(7)] = value
}

/**
 * Applies one diff to `blocks` in place. Throws a TagstreamError `ERR_INVALID_DIFF` (having changed
 * nothing) when the diff does not fit, as {@link applyDiff} does.
 * @internal
 */
export function applyInPlace(blocks: Block[], diff: BlockDiff): void {
  switch (diff.op) {
    case 'add':
      if (diff.index !== blocks.length) bad(diff, `add at ${diff.index} but there are ${blocks.length} blocks`)
      blocks.push(copyBlock(diff.block, diff))
      return
    case 'truncate':
      if (!(typeof diff.length === 'number' && diff.length >= 0 && diff.length <= blocks.length && Number.isInteger(diff.length))) {
        bad(diff, `truncate to ${diff.length} of ${blocks.length} blocks`)
      }
      blocks.length = diff.length
      return
    case 'replace':
    case 'complete':
    case 'set':
    case 'append': {
      const b = blocks[diff.index]
      if (b === undefined) return bad(diff, `no block at index ${diff.index}`)
      if (diff.op === 'replace') blocks[diff.index] = copyBlock(diff.block, diff)
      else if (diff.op === 'complete') b.partial = false
      else if (diff.op === 'set') {
        if (typeof diff.value !== 'string') bad(diff, 'value must be a string')
        readPath(b, diff.path, diff) // checks the path; a new param is undefined here, which is fine
        writePath(b, diff.path, diff.value)
      } else {
        if (typeof diff.text !== 'string') bad(diff, 'text must be a string')
        const v = readPath(b, diff.path, diff)
        if (v === undefined) bad(diff, `no string at path ${safeJson(diff.path)}`)
        writePath(b, diff.path, v + diff.text)
      }
      return
    }
    default:
      bad(diff, 'unknown op')
  }
}
