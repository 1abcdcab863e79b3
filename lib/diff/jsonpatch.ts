/**
 * Block diffs as RFC 6902 JSON Patch operations, for UIs and stores that speak JSON Patch.
 * @module
 */
import type { BlockDiff } from '../types.js'
import { checkDiff, invalidDiff } from './validate.js'

/**
 * One RFC 6902 operation, as {@link toJsonPatch} produces them.
 * @example
 * ```ts
 * const op: JsonPatchOperation = { op: 'replace', path: '/0/content', value: 'Hello' }
 * ```
 * @group Diffs
 */
export interface JsonPatchOperation {
  /** The RFC 6902 operation; tagstream uses `add`, `replace` and `remove`. */
  op: 'add' | 'replace' | 'remove'
  /** RFC 6901 pointer into the block array, e.g. `/1/params/path`. */
  path: string
  /** The value for `add` and `replace`. */
  value?: unknown
}

/** RFC 6901 escaping of one reference token. */
function token(s: string): string {
  return s.replace(/~/gu, '~0').replace(/\//gu, '~1')
}

function pointer(index: number, path: string): string {
  if (path.startsWith('params.')) return `/${index}/params/${token(path.slice(7))}`
  return `/${index}/${token(path)}`
}

/**
 * Converts a diff to JSON Patch operations on the block array. `append` has no JSON Patch
 * equivalent, so it needs the current value: pass the array the diff applies to.
 * Truncation becomes one `remove` per block, last first. The diff is checked first, against
 * `blocks` when given: a diff that does not fit throws a {@link TagstreamError} with code
 * `ERR_INVALID_DIFF` (see {@link applyDiff}).
 * @example
 * ```ts
 * import { toJsonPatch } from 'tagstream'
 * toJsonPatch({ op: 'complete', index: 2 }) // [ { op: 'replace', path: '/2/partial', value: false } ]
 * ```
 * @group Diffs
 */
export function toJsonPatch(diff: BlockDiff, blocks?: readonly unknown[]): JsonPatchOperation[] {
  if (blocks !== undefined && !Array.isArray(blocks)) invalidDiff(diff, 'toJsonPatch: the block array must be an array')
  checkDiff(diff, blocks)
  switch (diff.op) {
    case 'add':
      return [{ op: 'add', path: `/${diff.index}`, value: diff.block }]
    case 'replace':
      return [{ op: 'replace', path: `/${diff.index}`, value: diff.block }]
    case 'complete':
      return [{ op: 'replace', path: `/${diff.index}/partial`, value: false }]
    case 'set':
      return [{ op: 'add', path: pointer(diff.index, diff.path), value: diff.value }]
    case 'truncate': {
      if (blocks === undefined) return invalidDiff(diff, 'toJsonPatch needs the current block array for a truncate')
      // checked: 0 <= length <= blocks.length, so at most one operation per existing block
      const ops: JsonPatchOperation[] = []
      for (let i = blocks.length - 1; i >= diff.length; i--) ops.push({ op: 'remove', path: `/${i}` })
      return ops
    }
    case 'append': {
      if (blocks === undefined) return invalidDiff(diff, 'toJsonPatch needs the current block array for an append')
      // checked: the block has a string at the path, a param as an own property
      const block = blocks[diff.index] as Record<string, unknown>
      const current = diff.path.startsWith('params.')
        ? (block['params'] as Record<string, string>)[diff.path.slice(7)]!
        : (block[diff.path] as string)
      return [{ op: 'replace', path: pointer(diff.index, diff.path), value: current + diff.text }]
    }
  }
}
