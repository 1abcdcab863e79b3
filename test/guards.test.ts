// The record guards tell every kind of record a stream emits apart, and only by its op.
import t from 'tap'
import { applyDiff, isBlockDiff, isDiagnosticRecord, isMarker, parseStream, type Block, type DiffRecord } from '../lib/index.js'

t.test('each record of a replay-like stream is exactly one of diff, marker, diagnostic', async (t) => {
  const records: (DiffRecord | Block[])[] = [{ op: 'message', id: 'm1' }]
  for await (const r of parseStream(['Hi <write_file>', '<read_file><path>a</path></read_file>'], { diagnosticRecords: true, diagnostics: true })) records.push(r)
  records.push({ op: 'end', id: 'm1' })
  let blocks: Block[] = []
  const kinds = records.map((r) => {
    const k = [isBlockDiff(r), isMarker(r), isDiagnosticRecord(r)]
    t.equal(k.filter(Boolean).length, 1, `one kind for ${JSON.stringify(r)}`)
    if (isBlockDiff(r)) blocks = applyDiff(blocks, r)
    return k.indexOf(true)
  })
  t.ok(kinds.includes(0) && kinds.includes(1) && kinds.includes(2), 'all three kinds occur')
  t.equal(blocks.length, 2, 'the diffs alone rebuild the blocks')
})

t.test('a snapshot is none of them; unknown ops are not diffs', async (t) => {
  const snapshot: Block[] = [{ type: 'text', content: 'x', partial: true }]
  t.same([isBlockDiff(snapshot), isMarker(snapshot), isDiagnosticRecord(snapshot)], [false, false, false])
  const odd = { op: 'bogus' } as unknown as DiffRecord
  t.same([isBlockDiff(odd), isMarker(odd), isDiagnosticRecord(odd)], [false, false, false])
  for (const op of ['add', 'append', 'set', 'complete', 'truncate', 'replace']) t.ok(isBlockDiff({ op } as unknown as DiffRecord), op)
})
