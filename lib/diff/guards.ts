/**
 * Type guards that tell the records of a diff stream apart, so a consumer can hand the diffs of a
 * stream to {@link applyDiff} without casts.
 * @module
 */
import type { Block, BlockDiff, DiagnosticRecord, DiffRecord, EndMarker, MessageMarker } from '../types.js'

const BLOCK_OPS: ReadonlySet<unknown> = new Set(['add', 'append', 'set', 'complete', 'truncate', 'replace'])


/**
 * Is `record` a block diff (`add`, `append`, `set`, `complete`, `truncate`, `replace`), as opposed to
 * a message marker, a diagnostic record or a snapshot? Only the `op` is looked at: use
 * {@link applyDiff}, which validates, to check the rest.
 * @example
 * ```ts
 * let blocks: Block[] = []
 * for await (const r of replayDiffs(readLog(file))) if (isBlockDiff(r)) blocks = applyDiff(blocks, r)
 * ```
 * @group Diffs
 */
export function isBlockDiff(record: DiffRecord | Block[]): record is BlockDiff {
  return !Array.isArray(record) && BLOCK_OPS.has(record.op)
}

/**
 * Is `record` a `{op:'message'}` or `{op:'end'}` marker, which frame the diffs of one message in a
 * replay?
 * @example
 * ```ts
 * if (isMarker(r) && r.op === 'message') blocks = []
 * ```
 * @group Diffs
 */
export function isMarker(record: DiffRecord | Block[]): record is MessageMarker | EndMarker {
  return !Array.isArray(record) && (record.op === 'message' || record.op === 'end')
}

/**
 * Is `record` a `{op:'diagnostic'}` record (emitted among the diffs with `diagnosticRecords`)?
 * @example
 * ```ts
 * if (isDiagnosticRecord(r)) console.warn(r.code, r.message)
 * ```
 * @group Diffs
 */
export function isDiagnosticRecord(record: DiffRecord | Block[]): record is DiagnosticRecord {
  return !Array.isArray(record) && record.op === 'diagnostic'
}
