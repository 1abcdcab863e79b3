// BlockAccumulator (issue 12): the same blocks as applyDiff, in place, at a cost per diff that does
// not depend on the number of blocks.
import t from 'tap'
import fc from 'fast-check'
import { BlockAccumulator, applyDiff, diffBlocks, parseAssistantMessage, type Block, type BlockDiff, type DiffRecord } from '../lib/index.js'
import { DiffSession } from '../lib/streams/session.js'
import { soup, cutsUpTo, chunksOf, counter } from './helpers/arb.js'

const json = JSON.stringify
const profiles = [{}, { profile: 'robust' as const, diagnostics: false }, { lenientTags: true, hidePartialTags: true }]

/** The diffs a parser stream emits for `chunks`, grouped by chunk (the last group: the end). */
function streamDiffs(chunks: string[], opts: object): BlockDiff[][] {
  const groups: BlockDiff[][] = []
  let cur: BlockDiff[] = []
  const session = new DiffSession({ ...opts, idGenerator: counter() }, {
    record: (d: DiffRecord) => { if (d.op !== 'diagnostic' && d.op !== 'message' && d.op !== 'end') cur.push(d) },
    diagnostic: () => {},
  })
  for (const c of chunks) {
    session.push(c)
    groups.push(cur)
    cur = []
  }
  session.end()
  groups.push(cur)
  return groups
}

t.test('applying a chunked stream with the accumulator gives what applyDiff gives, after every chunk', async (t) => {
  let reads = 0
  for (const opts of profiles) {
    fc.assert(fc.property(soup.chain((s) => fc.tuple(fc.constant(s), cutsUpTo(s.length), fc.boolean())), ([s, cuts, readOften]) => {
      const acc = new BlockAccumulator()
      let blocks: Block[] = []
      const groups = streamDiffs(chunksOf(s, cuts), opts)
      for (const [g, group] of groups.entries()) {
        for (const d of group) {
          blocks = applyDiff(blocks, d)
          acc.apply(d)
          // reading between appends must not lose the pieces collected so far
          if (readOften && d.op === 'append') { reads++; if (json(acc.blocks) !== json(blocks)) throw new Error(`mid-chunk mismatch on ${json(s)}`) }
        }
        if (acc.json() !== json(blocks)) throw new Error(`json() differs on ${json(s)} ${json(cuts)}`)
        if (json(acc.blocks) !== json(blocks)) throw new Error(`mismatch on ${json(s)} ${json(cuts)}\n got ${json(acc.blocks)}\nwant ${json(blocks)}`)
        // before the end's completions, the blocks are the parse of the whole text
        if (g === groups.length - 2 && json(blocks) !== json(parseAssistantMessage(s, { ...opts, idGenerator: counter() }))) throw new Error('the stream is not the parse')
      }
      if (json(acc.snapshot()) !== json(blocks)) throw new Error('snapshot differs')
    }), { numRuns: 300 })
  }
  t.ok(reads > 0, 'some runs read the blocks between appends')
})

t.test('diffBlocks between unrelated parses applies the same way (replace, truncate, set)', async (t) => {
  const seen = new Set<string>()
  // unrelated texts, and sometimes a text after its own first half, so that appends come up in
  // every run of the suite rather than by chance
  const texts = fc.array(soup, { minLength: 2, maxLength: 5 })
    .chain((ts) => fc.boolean().map((half) => (half ? [ts[0]!.slice(0, ts[0]!.length >> 1), ...ts] : ts)))
  fc.assert(fc.property(texts, (texts) => {
    const acc = new BlockAccumulator()
    let blocks: Block[] = []
    for (const text of texts) {
      const next = parseAssistantMessage(text, { idGenerator: counter() })
      for (const d of diffBlocks(blocks, next)) {
        seen.add(d.op)
        acc.apply(d)
      }
      blocks = next
      if (acc.json() !== json(next)) throw new Error(`json() differs: ${acc.json()} vs ${json(next)}`)
      if (json(acc.blocks) !== json(next)) throw new Error(`mismatch ${json(acc.blocks)} vs ${json(next)}`)
    }
  }), { numRuns: 500 })
  for (const op of ['add', 'set', 'truncate', 'replace', 'complete', 'append']) t.ok(seen.has(op), `the runs used ${op}`)
})

t.test('the sender\'s blocks are never modified, and snapshots are copies', async (t) => {
  const block: Block = Object.freeze({ type: 'tool_use', name: 'read_file', params: Object.freeze({ path: 'a' }), partial: true, call_id: 'x', isNativeToolCall: false }) as Block
  const acc = new BlockAccumulator([{ type: 'text', content: 'Hi', partial: false }])
  acc.apply({ op: 'add', index: 1, block })
  acc.apply({ op: 'append', index: 1, path: 'params.path', text: '.ts' })
  const snap = acc.snapshot()
  acc.apply({ op: 'set', index: 1, path: 'params.mode', value: 'r' })
  acc.apply({ op: 'complete', index: 1 })
  t.same(block, { type: 'tool_use', name: 'read_file', params: { path: 'a' }, partial: true, call_id: 'x', isNativeToolCall: false })
  t.same(snap[1], { ...block, params: { path: 'a.ts' } })
  t.same(acc.blocks[1], { ...block, params: { path: 'a.ts', mode: 'r' }, partial: false })
  t.equal(acc.length, 2)
  const before = acc.blocks
  acc.reset()
  t.equal(acc.length, 0)
  t.equal(before.length, 2, 'the array read before reset is left alone')
  acc.apply({ op: 'add', index: 0, block: { type: 'reasoning', reasoning: 'r', partial: true } })
    .apply({ op: 'append', index: 0, path: 'reasoning', text: 'e' })
    .apply({ op: 'append', index: 0, path: 'reasoning', text: 'ad' })
  t.same(acc.blocks, [{ type: 'reasoning', reasoning: 'read', partial: true }])
})

t.test('a bad diff throws ERR_INVALID_DIFF and changes nothing', async (t) => {
  const acc = new BlockAccumulator([{ type: 'text', content: 'Hi', partial: true }])
  acc.apply({ op: 'append', index: 0, path: 'content', text: '!' })
  const bad = [
    { op: 'append', index: 1, path: 'content', text: 'x' },
    { op: 'append', index: 0, path: 'content', text: 5 },
    { op: 'append', index: 0, path: 'params.x', text: 'x' },
    { op: 'add', index: 1, block: null },
    { op: 'complete', index: '__proto__' },
    { op: 'truncate', length: -5 },
  ]
  for (const d of bad) t.throws(() => acc.apply(d as unknown as BlockDiff), { code: 'ERR_INVALID_DIFF' }, json(d))
  t.same(acc.blocks, [{ type: 'text', content: 'Hi!', partial: true }])
})

t.test('no copy per diff: the array and the untouched blocks stay the same objects', async (t) => {
  const n = 2000
  const acc = new BlockAccumulator()
  const array = acc.blocks
  for (let i = 0; i < n; i++) acc.apply({ op: 'add', index: i, block: { type: 'text', content: 'x', partial: false } })
  const first = acc.blocks[0]
  for (let i = 0; i < 1000; i++) acc.apply({ op: 'append', index: n - 1, path: 'content', text: 'y' })
  acc.apply({ op: 'set', index: n - 2, path: 'content', value: 'z' })
  acc.apply({ op: 'truncate', length: n - 1 })
  t.equal(acc.blocks, array, 'one array for the whole turn')
  t.equal(acc.blocks[0], first, 'untouched blocks are not copied')
  t.equal(acc.length, n - 1)
  t.equal((acc.blocks[n - 2] as { content: string }).content, 'z')
})

t.test('the append fast path checks what checkDiff checks: no block, a bad path, a bad text, not an object', async (t) => {
  const acc = new BlockAccumulator()
  const bad: unknown[] = [
    { op: 'append', index: -1, path: 'content', text: 'x' },
    { op: 'append', index: 0, path: 'content', text: 'x' },
    null,
    7,
  ]
  for (const d of bad) t.throws(() => acc.apply(d as BlockDiff), { code: 'ERR_INVALID_DIFF' }, json(d))
  acc.apply({ op: 'add', index: 0, block: { type: 'tool_use', name: 'x', params: { a: '1' }, partial: true, call_id: 'c', isNativeToolCall: false } })
  for (const d of [
    { op: 'append', index: 0, path: 'params.b', text: 'x' },
    { op: 'append', index: 0, path: 'params.toString', text: 'x' },
    { op: 'append', index: 0, path: 'content', text: 'x' },
    { op: 'append', index: 0, path: 'params.a', text: 1 },
  ]) t.throws(() => acc.apply(d as BlockDiff), { code: 'ERR_INVALID_DIFF' }, json(d))
  acc.apply({ op: 'append', index: 0, path: 'params.a', text: '2' })
  t.equal(acc.json(), '[{"type":"tool_use","name":"x","params":{"a":"12"},"partial":true,"call_id":"c","isNativeToolCall":false}]')
})
