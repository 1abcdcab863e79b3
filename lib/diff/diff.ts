/**
 * Block diffs (SPEC 5): compute them between two snapshots, and apply them. Pure functions.
 * @module
 */
import type { Block, BlockDiff, ToolUseBlock } from '../types.js'
import { checkDiff, getParam, invalidDiff, setParam } from './validate.js'
import type { BlockAccumulator } from './accumulator.js'
import type { TagstreamError } from '../errors.js'

/**
 * A string field that is known to have grown by appending since the previous snapshot, so the
 * differ need not compare the whole string. @internal
 * @group Diffs
 */
export interface AppendHint {
  index: number
  path: string
  /** The text appended since the previous snapshot ('' for none). */
  text: string
}

/** The hint for the string at `index`, `path`, if any. */
function hintFor(hint: AppendHint | readonly AppendHint[] | undefined, index: number, path: string): AppendHint | undefined {
  if (hint === undefined) return undefined
  if (!Array.isArray(hint)) {
    const h = hint as AppendHint
    return h.index === index && h.path === path ? h : undefined
  }
  for (const h of hint as readonly AppendHint[]) if (h.index === index && h.path === path) return h
  return undefined
}

/**
 * `b.startsWith(a)`. V8's startsWith compares character by character (2-3 ns each: 40-60 us
 * for an 18 KB value), where a slice (no copy) and `===` compare by memcmp (under 1 us): the
 * differ compares whole values when a block completes. @internal
 */
export function hasPrefix(b: string, a: string): boolean {
  return a.length <= b.length && (a.length < 32 ? b.startsWith(a) : b.slice(0, a.length) === a)
}

/**
 * `(a + b).slice(prefix.length)` if `a + b` starts with `prefix`, else null; without joining `a`
 * and `b` first. Their join is a cons string, which V8 flattens (a runtime call and a copy) to
 * compare its start or to cut it: after a chunk that ended in a cut tag (`<`, `</`) in a value
 * (8% of a stream whose every chunk ends in one). @internal
 */
export function pastPrefix(a: string, b: string, prefix: string): string | null {
  const n = a.length
  const k = prefix.length
  if (k <= n) {
    if (!hasPrefix(a, prefix)) return null
    return k === n ? b : b.length === 0 ? a.slice(k) : a.slice(k) + b
  }
  // the prefix goes past `a`: `a` starts it, and `b` starts with the rest of it
  if (!hasPrefix(prefix, a)) return null
  const rest = n === 0 ? prefix : prefix.slice(n)
  return hasPrefix(b, rest) ? b.slice(rest.length) : null
}

function stringDiff(out: BlockDiff[], index: number, path: string, a: string | undefined, b: string, hints: AppendHint | readonly AppendHint[] | undefined): void {
  const hint = hintFor(hints, index, path)
  if (hint !== undefined && a !== undefined) {
    if (hint.text.length > 0) out.push({ op: 'append', index, path, text: hint.text })
    return
  }
  if (a === b) return
  if (a !== undefined && b.length > a.length && hasPrefix(b, a)) out.push({ op: 'append', index, path, text: b.slice(a.length) })
  else out.push({ op: 'set', index, path, value: b })
}

function sameKeysPrefix(a: Record<string, string>, b: Record<string, string>): boolean {
  const ka = Object.keys(a)
  const kb = Object.keys(b)
  if (ka.length > kb.length) return false
  for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return false
  return true
}

/**
 * Pushes the diffs that take block `a` to block `b` at `index`. @internal
 * @group Diffs
 */
export function diffBlock(out: BlockDiff[], index: number, a: Block, b: Block, hint?: AppendHint | readonly AppendHint[]): void {
  if (a === b) return
  if (a.type !== b.type || (a.partial === false && b.partial === true)) {
    out.push({ op: 'replace', index, block: b })
    return
  }
  switch (b.type) {
    case 'text':
      stringDiff(out, index, 'content', (a as typeof b).content, b.content, hint)
      break
    case 'reasoning':
      stringDiff(out, index, 'reasoning', (a as typeof b).reasoning, b.reasoning, hint)
      break
    case 'tool_use': {
      const t = a as ToolUseBlock
      if (t.name !== b.name || t.call_id !== b.call_id || t.isNativeToolCall !== b.isNativeToolCall
        || t.truncated !== b.truncated || !sameKeysPrefix(t.params, b.params)) {
        out.push({ op: 'replace', index, block: b })
        return
      }
      for (const k of Object.keys(b.params)) stringDiff(out, index, 'params.' + k, t.params[k], b.params[k]!, hint)
      break
    }
  }
  if (a.partial && !b.partial) out.push({ op: 'complete', index })
}

/**
 * The diffs that take snapshot `prev` to snapshot `next`: applying them in order with
 * {@link applyDiff} gives an array deep-equal to `next`. Blocks that are the same object in
 * both are skipped without a look, which is what makes diffing successive parser snapshots cheap.
 * @example
 * ```ts
 * import { diffBlocks } from 'tagstream'
 * diffBlocks(
 *   [{ type: 'text', content: 'Hel', partial: true }],
 *   [{ type: 'text', content: 'Hello', partial: false }],
 * )
 * // [ { op: 'append', index: 0, path: 'content', text: 'lo' }, { op: 'complete', index: 0 } ]
 * ```
 * @group Diffs
 */
export function diffBlocks(prev: readonly Block[], next: readonly Block[]): BlockDiff[] {
  const out: BlockDiff[] = []
  const common = Math.min(prev.length, next.length)
  for (let i = 0; i < common; i++) diffBlock(out, i, prev[i]!, next[i]!)
  if (next.length < prev.length) out.push({ op: 'truncate', length: next.length })
  for (let i = common; i < next.length; i++) out.push({ op: 'add', index: i, block: next[i]! })
  return out
}

function setPath(block: Block, path: string, value: string): Block {
  if (block.type === 'text') return { ...block, content: value }
  if (block.type === 'reasoning') return { ...block, reasoning: value }
  const params = { ...block.params }
  setParam(params, path.slice(7), value)
  return { ...block, params }
}

/**
 * Does diff `path` name a string of this kind of block (`content`, `reasoning`, `params.<name>`)? @internal
 * @group Diffs
 */
export function pathFits(block: Block, path: unknown): path is string {
  if (block.type === 'text') return path === 'content'
  if (block.type === 'reasoning') return path === 'reasoning'
  return block.type === 'tool_use' && typeof path === 'string' && path.startsWith('params.')
}

/**
 * The string at diff `path` of `block`; undefined if the path does not fit or names no param yet
 * (an own property: never `constructor` or another name inherited from `Object.prototype`). @internal
 * @group Diffs
 */
export function fieldAt(block: Block, path: unknown): string | undefined {
  if (!pathFits(block, path)) return undefined
  if (block.type === 'text') return block.content
  if (block.type === 'reasoning') return block.reasoning
  return getParam(block.params, path.slice(7))
}

/**
 * Applies one diff and returns the updated array. The input array and its blocks are not
 * modified: changed blocks are copied, the others shared, so a UI can compare by reference
 * (a consumer that applies every diff of a long message should use {@link BlockAccumulator},
 * which does not copy the array per diff).
 *
 * Diffs come from logs and sockets, so each is checked first, and throws a
 * {@link TagstreamError} with code `ERR_INVALID_DIFF` naming it, having changed nothing, unless:
 * `op` is one of the six; `index` is an integer naming an existing block (`add`: the current
 * length; `truncate`'s `length`: 0 to the length); `path` is `content` on a text block,
 * `reasoning` on a reasoning block, or `params.<name>` on a tool block with any name but
 * `__proto__` (for `append`, an own param the block has); `text` and `value` are strings; an
 * added or replacing block is well-formed (a plain object of type `text`, `reasoning` or
 * `tool_use` with its string field and a boolean `partial`; a tool block with string `name` and
 * `call_id`, boolean `isNativeToolCall`, optional boolean `truncated`, and a plain `params`
 * object whose values are strings). Params are written as own properties only: no diff can
 * reach a prototype.
 * @example
 * ```ts
 * import { applyDiff } from 'tagstream'
 * let blocks = applyDiff([], { op: 'add', index: 0, block: { type: 'text', content: 'Hi', partial: true } })
 * blocks = applyDiff(blocks, { op: 'append', index: 0, path: 'content', text: ' there' })
 * blocks[0] // { type: 'text', content: 'Hi there', partial: true }
 * ```
 * @group Diffs
 */
export function applyDiff(blocks: readonly Block[], diff: BlockDiff): Block[] {
  if (!Array.isArray(blocks)) invalidDiff(diff, 'applyDiff needs the block array it applies to')
  checkDiff(diff, blocks)
  const out = blocks.slice()
  switch (diff.op) {
    case 'add':
      out.push(diff.block)
      break
    case 'truncate':
      out.length = diff.length
      break
    case 'replace':
      out[diff.index] = diff.block
      break
    case 'complete':
      out[diff.index] = { ...blocks[diff.index]!, partial: false }
      break
    case 'set':
      out[diff.index] = setPath(blocks[diff.index]!, diff.path, diff.value)
      break
    case 'append': {
      const b = blocks[diff.index]!
      out[diff.index] = setPath(b, diff.path, fieldAt(b, diff.path)! + diff.text)
      break
    }
  }
  return out
}
