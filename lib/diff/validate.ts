/**
 * Validation of diffs and blocks (SPEC 9): diffs come from logs, sockets and callers, so every entry
 * that applies one (`applyDiff`, `toJsonPatch`, `BlockAccumulator`, the Presenter) checks it first
 * and throws `ERR_INVALID_DIFF` at once. The checks are a handful of `typeof` tests per diff, so
 * the valid path stays as fast as before; only `add` and `replace` look into a whole block.
 * @internal
 * @module
 */
import type { Block, BlockDiff } from '../types.js'
import { TagstreamError } from '../errors.js'

/** Longest rendering of a bad diff in an error message. */
const MAX_DESCRIBE = 200

function describeValue(v: unknown, depth: number): string {
  if (typeof v === 'string') {
    const s = v.length > 60 ? v.slice(0, 60) + '…' : v
    return `'${JSON.stringify(s).slice(1, -1).replace(/'/gu, "\\'")}'`
  }
  if (v === null || typeof v !== 'object') {
    return typeof v === 'function' ? '[function]' : typeof v === 'symbol' ? v.toString() : typeof v === 'bigint' ? `${v}n` : String(v)
  }
  if (depth > 1) return Array.isArray(v) ? '[…]' : '{…}'
  if (Array.isArray(v)) {
    const items = v.slice(0, 5).map((x) => describeValue(x, depth + 1))
    return `[${items.join(',')}${v.length > 5 ? ',…' : ''}]`
  }
  const keys = Object.keys(v)
  const parts = keys.slice(0, 8).map((k) => {
    const key = /^[A-Za-z_$][\w$]*$/u.test(k) ? k : describeValue(k, depth)
    return `${key}:${describeValue((v as Record<string, unknown>)[k], depth + 1)}`
  })
  return `{${parts.join(',')}${keys.length > 8 ? ',…' : ''}}`
}

/**
 * A short JavaScript-like rendering of a (possibly hostile) diff for an error message, e.g.
 * `{op:'complete',index:'__proto__'}`. Never throws, at most about 200 characters. @internal
 * @group Diffs
 */
export function describeDiff(diff: unknown): string {
  let s: string
  try {
    s = describeValue(diff, 0)
  } catch {
    s = '[unreadable]' // a Proxy or a getter that throws
  }
  return s.length > MAX_DESCRIBE ? s.slice(0, MAX_DESCRIBE) + '…' : s
}

/**
 * Throws the `ERR_INVALID_DIFF` error for `diff`. @internal
 * @group Diffs
 */
export function invalidDiff(diff: unknown, why: string): never {
  throw new TagstreamError('ERR_INVALID_DIFF', `invalid diff ${describeDiff(diff)}: ${why}`, { diff })
}

const hasOwn = Object.hasOwn
const objectProto = Object.prototype

/**
 * Is `name` usable as a param name? Everything but `__proto__`, the one key whose assignment on a
 * plain object changes the prototype instead of adding a property (SPEC 9 lists it as invalid).
 */
function paramNameOk(name: string): boolean {
  return name !== '__proto__'
}

/** An object literal or a JSON.parse result (or `Object.create(null)`): no inherited fields, no getters from a class. */
function plain(o: object): boolean {
  const proto: unknown = Object.getPrototypeOf(o)
  return proto === objectProto || proto === null
}

function blockProblem(b: unknown): string | undefined {
  if (b === null || typeof b !== 'object') return 'the block must be an object'
  if (!plain(b)) return 'the block must be a plain object'
  const x = b as Record<string, unknown>
  if (typeof x['partial'] !== 'boolean') return 'the block needs a boolean partial'
  switch (x['type']) {
    case 'text':
      return typeof x['content'] === 'string' ? undefined : 'a text block needs a string content'
    case 'reasoning':
      return typeof x['reasoning'] === 'string' ? undefined : 'a reasoning block needs a string reasoning'
    case 'tool_use': {
      if (typeof x['name'] !== 'string') return 'a tool_use block needs a string name'
      if (typeof x['call_id'] !== 'string') return 'a tool_use block needs a string call_id'
      if (typeof x['isNativeToolCall'] !== 'boolean') return 'a tool_use block needs a boolean isNativeToolCall'
      if (x['truncated'] !== undefined && typeof x['truncated'] !== 'boolean') return 'truncated must be a boolean'
      const p = x['params']
      if (p === null || typeof p !== 'object') return 'a tool_use block needs a params object'
      if (!plain(p)) return 'params must be a plain object'
      for (const k of Object.keys(p)) {
        if (!paramNameOk(k)) return `a param may not be named ${describeValue(k, 0)}`
        if (typeof (p as Record<string, unknown>)[k] !== 'string') return `param ${describeValue(k, 0)} must be a string`
      }
      return undefined
    }
    default:
      return 'the block type must be text, tool_use or reasoning'
  }
}

/**
 * Checks that `b` is a well-formed block: `type` text, tool_use or reasoning with its string
 * field, a boolean `partial`; a tool block with string `name` and `call_id`, boolean
 * `isNativeToolCall`, optional boolean `truncated`, and a plain `params` object whose own values
 * are all strings. Throws `ERR_INVALID_DIFF` naming `diff` otherwise. @internal
 * @group Diffs
 */
export function checkBlock(b: unknown, diff: unknown): asserts b is Block {
  const why = blockProblem(b)
  if (why !== undefined) invalidDiff(diff, why)
}

function indexRange(n: number): string {
  return n === 0 ? 'there is no block' : `index must be an integer from 0 to ${n - 1}`
}

function isIndex(i: unknown): i is number {
  // 2^32 - 2 is the largest array index: beyond it no block can exist, and a pointer could not name it
  return typeof i === 'number' && Number.isInteger(i) && i >= 0 && i < 4294967295
}

/**
 * Checks the path of a `set` or `append` diff against the kind of block it names; for an
 * `append`, the string must exist (a param as an own property).
 */
function checkPath(diff: { path?: unknown }, block: Block | undefined, append: boolean): void {
  const path = diff.path
  if (typeof path !== 'string') return invalidDiff(diff, 'path must be a string')
  let current: unknown
  if (path === 'content' || path === 'reasoning') {
    if (block === undefined) return
    if (block.type !== (path === 'content' ? 'text' : 'reasoning')) return invalidDiff(diff, `path '${path}' does not fit a ${String(block.type)} block`)
    current = path === 'content' ? (block as { content?: unknown }).content : (block as { reasoning?: unknown }).reasoning
  } else if (path.startsWith('params.')) {
    const name = path.slice(7)
    if (!paramNameOk(name)) return invalidDiff(diff, `a param may not be named '${name}'`)
    if (block === undefined) return
    if (block.type !== 'tool_use') return invalidDiff(diff, `a params path does not fit a ${String(block.type)} block`)
    const params: unknown = block.params
    if (params === null || typeof params !== 'object') return invalidDiff(diff, 'the block has no params object')
    if (!append) return
    if (!hasOwn(params, name)) return invalidDiff(diff, 'the block has no such param to append to')
    current = (params as Record<string, unknown>)[name]
  } else {
    return invalidDiff(diff, "path must be 'content', 'reasoning' or 'params.<name>'")
  }
  if (append && typeof current !== 'string') invalidDiff(diff, 'the string to append to is not a string')
}

/**
 * Checks that `diff` is a well-formed {@link BlockDiff} that applies to `blocks`: a known `op`;
 * integer indices in range (`add` at the current length, `truncate` to at most it); a block that
 * passes {@link checkBlock}; a `path` (`content`, `reasoning` or `params.<name>`) that fits the
 * block's type, and that exists for `append`; string `text` and `value`. Without `blocks` (a
 * {@link toJsonPatch} call without the array) only the shape and the indices' type are checked.
 * Throws a `TagstreamError` `ERR_INVALID_DIFF` naming the diff otherwise. Markers and diagnostic
 * records are not diffs: the callers that accept them handle them before this check.
 * @internal
 * @group Diffs
 */
export function checkDiff(diff: unknown, blocks: readonly unknown[] | undefined): asserts diff is BlockDiff {
  if (diff === null || typeof diff !== 'object') invalidDiff(diff, 'a diff must be an object')
  const d = diff as Record<string, unknown>
  const op = d['op']
  const n = blocks === undefined ? -1 : blocks.length
  if (op === 'truncate') {
    const len = d['length']
    if (n >= 0 ? !(isIndex(len) && len <= n) : !isIndex(len)) {
      invalidDiff(diff, n >= 0 ? `length must be an integer from 0 to ${n}` : 'length must be a non-negative integer')
    }
    return
  }
  if (op !== 'append' && op !== 'set' && op !== 'complete' && op !== 'add' && op !== 'replace') {
    invalidDiff(diff, "op must be one of 'add', 'append', 'set', 'complete', 'truncate', 'replace'")
  }
  const i = d['index']
  let block: Block | undefined
  if (n < 0) {
    if (!isIndex(i)) invalidDiff(diff, 'index must be a non-negative integer')
  } else {
    if (op === 'add') {
      if (i !== n) invalidDiff(diff, `an add must be at the end: index must be ${n}`)
    } else {
      if (!isIndex(i)) invalidDiff(diff, indexRange(n))
      if (i >= n) invalidDiff(diff, indexRange(n))
      const b = blocks![i]
      if (b === null || typeof b !== 'object') invalidDiff(diff, `block ${i} of the array is not a block`)
      block = b as Block
    }
  }
  switch (op) {
    case 'append':
      checkPath(d, block, true)
      if (typeof d['text'] !== 'string') invalidDiff(diff, 'text must be a string')
      return
    case 'set':
      checkPath(d, block, false)
      if (typeof d['value'] !== 'string') invalidDiff(diff, 'value must be a string')
      return
    case 'add':
    case 'replace':
      checkBlock(d['block'], diff)
      return
    default: // complete
  }
}

/**
 * Checks every element of a snapshot record (a `Block[]` sent instead of diffs). @internal
 * @group Diffs
 */
export function checkSnapshot(blocks: readonly unknown[]): asserts blocks is Block[] {
  for (let i = 0; i < blocks.length; i++) {
    const why = blockProblem(blocks[i])
    if (why !== undefined) invalidDiff(blocks, `block ${i} of the snapshot: ${why}`)
  }
}

/**
 * Sets param `name` as an own data property, whatever the name: an assignment would call a setter
 * inherited from the prototype, and `__proto__`'s replaces the prototype. @internal
 * @group Diffs
 */
export function setParam(params: Record<string, string>, name: string, value: string): void {
  if (name === '__proto__' || !hasOwn(params, name)) {
    Object.defineProperty(params, name, { value, writable: true, enumerable: true, configurable: true })
  } else {
    params[name] = value
  }
}

/**
 * Param `name` if it is an own property, else `undefined` (never `constructor` from the prototype). @internal
 * @group Diffs
 */
export function getParam(params: Record<string, string>, name: string): string | undefined {
  return hasOwn(params, name) ? params[name] : undefined
}
