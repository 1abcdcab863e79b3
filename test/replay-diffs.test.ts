// Replay to diffs (SPEC 5 and 8): each turn framed by message/end markers, its diffs adding up
// to parseAssistantMessage(turn text) with partial blocks completed; reasoning blocks; pacing;
// nested turns; the whole replay as a Node stream.
import t, { type Test } from 'tap'
import fc from 'fast-check'
import { readFileSync } from 'node:fs'
import { Readable, Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import {
  ReplayDiffer, replayDiffs, readLog, readLogBatches, readClineHistory, pace, replayTurns, diffTurns, createReplayStream, counterIds,
  parseAssistantMessage, applyDiff, TagstreamError,
  type Block, type BlockDiff, type DiffRecord, type ReplayEvent, type ParseOptions, type ReplayDiffOptions,
} from '../lib/index.js'
import { all, soup, cutsUpTo, chunksOf } from './helpers/arb.js'

/** Applies each turn's diffs to [], checking the framing; returns the blocks per turn id. */
function byTurn(t: Test, records: DiffRecord[]): Map<string, Block[]> {
  const out = new Map<string, Block[]>()
  let id: string | null = null
  let blocks: Block[] = []
  for (const r of records) {
    if (r.op === 'message') {
      t.equal(id, null, 'no message inside a message')
      id = r.id
      blocks = []
    } else if (r.op === 'end') {
      t.equal(r.id, id, 'end matches its message')
      out.set(id!, blocks)
      id = null
    } else if (r.op !== 'diagnostic') {
      t.not(id, null, 'diffs only inside a message')
      blocks = applyDiff(blocks, r as BlockDiff)
    }
  }
  t.equal(id, null, 'every message ended')
  return out
}


const turn = (id: string, ...chunks: [('text' | 'reasoning'), string][]): ReplayEvent[] => [
  { type: 'message', id },
  ...chunks.map(([kind, text], i) => ({ type: 'chunk' as const, kind, text, t: i })),
  { type: 'end', id },
]

t.test('the bundled Cline history replays, turn by turn, as parseAssistantMessage of each turn', async (t) => {
  const file = 'examples/logs/cline_task_history.json'
  const history = JSON.parse(readFileSync(file, 'utf8')) as { role: string; content: { type: string; text?: string; thinking?: string }[] }[]
  const records = await all(replayDiffs(readLog(Readable.from([readFileSync(file)]), { file })))
  const got = byTurn(t, records)
  const ids = counterIds()
  let n = 0
  for (const m of history) {
    if (m.role !== 'assistant') continue
    const text = m.content.filter((p) => p.type === 'text').map((p) => p.text).join('\n\n')
    const reasoning = m.content.filter((p) => p.type === 'thinking').map((p) => p.thinking!.trim())
    const expected: Block[] = [
      ...reasoning.map((r): Block => ({ type: 'reasoning', reasoning: r, partial: false })),
      ...parseAssistantMessage(text, { final: true, idGenerator: ids }),
    ]
    t.same(got.get(`turn-${++n}`), expected, `turn-${n}`)
  }
  t.equal(n, 5)
  t.equal(got.size, 5)
})

t.test('any text, any chunking, any profile: a chunk-log turn ends as parseAssistantMessage(text, final)', async (t) => {
  await fc.assert(fc.asyncProperty(soup.chain((s) => cutsUpTo(s.length).map((cuts) => [s, cuts] as const)), fc.constantFrom<ParseOptions['profile']>('cline', 'robust'), async ([text, cuts], profile) => {
    const log = chunksOf(text, cuts).map((c, i) => JSON.stringify({ t: i, text: c }) + '\n').join('') || '{"meta":{}}\n'
    const records = await all(replayDiffs(readLog([log]), { profile }))
    let blocks: Block[] = []
    for (const r of records) if (r.op !== 'message' && r.op !== 'end' && r.op !== 'diagnostic') blocks = applyDiff(blocks, r as BlockDiff)
    const expected = parseAssistantMessage(text, { final: true, profile, idGenerator: counterIds(), diagnostics: false })
    return JSON.stringify(blocks) === JSON.stringify(expected)
  }), { numRuns: 150 })
  t.pass()
})

t.test('reasoning: a block before the text, trimmed, grown by append, completed when text starts', async (t) => {
  const records = await all(replayDiffs(turn('turn-1', ['reasoning', '  \n'], ['reasoning', ' Let me'], ['reasoning', ' think. \n'], ['reasoning', 'More.'], ['text', 'Hi <read_file><path>a</path></read_file>'])))
  t.same(records.slice(0, 5), [
    { op: 'message', id: 'turn-1' },
    { op: 'add', index: 0, block: { type: 'reasoning', reasoning: 'Let me', partial: true } },
    { op: 'append', index: 0, path: 'reasoning', text: ' think.' },
    { op: 'append', index: 0, path: 'reasoning', text: ' \nMore.' },
    { op: 'complete', index: 0 },
  ])
  const blocks = byTurn(t, records).get('turn-1')!
  t.same(blocks.map((b) => b.type), ['reasoning', 'text', 'tool_use'])
  t.same(blocks[0], { type: 'reasoning', reasoning: 'Let me think. \nMore.', partial: false })
  t.equal((blocks[2] as { call_id: string }).call_id, 'call_1', 'counter ids by default')
})

t.test('reasoning between text: segments in order, the text before it completed', async (t) => {
  const records = await all(replayDiffs(turn('t', ['text', 'A <read_file><path>x'], ['reasoning', 'hmm'], ['text', 'B'], ['reasoning', '  '])))
  const blocks = byTurn(t, records).get('t')!
  t.same(blocks, [
    { type: 'text', content: 'A', partial: false },
    { type: 'tool_use', name: 'read_file', params: { path: 'x' }, partial: false, call_id: 'call_1', isNativeToolCall: false },
    { type: 'reasoning', reasoning: 'hmm', partial: false },
    { type: 'text', content: 'B', partial: false },
  ])
})

t.test('options reach every turn: completeOnEnd, ids across turns, diagnostics records', async (t) => {
  const events = [...turn('a', ['text', 'x <read_file>']), ...turn('b', ['reasoning', 'r'], ['text', '<write_file>'])]
  const kept = byTurn(t, await all(replayDiffs(events, { completeOnEnd: false })))
  t.equal(kept.get('a')![1]!.partial, true)
  t.equal(kept.get('b')![0]!.partial, true, 'reasoning stays partial too')
  const diag = await all(replayDiffs(events, { diagnostics: true, diagnosticRecords: true }))
  t.ok(diag.some((r) => r.op === 'diagnostic' && r.code === 'unknown-tool'))
  const ids: string[] = []
  let n = 0
  const gen = (): string => `id${++n}`
  for (const r of await all(replayDiffs([...turn('a', ['text', '<read_file></read_file>']), ...turn('b', ['text', '<read_file></read_file>'])], { idGenerator: gen }))) {
    if (r.op === 'add' && r.block.type === 'tool_use') ids.push(r.block.call_id)
  }
  t.same(ids, ['id1', 'id2'], 'one generator for the whole replay')
  await t.rejects(all(replayDiffs([], { profile: 'fast' as 'cline' })), { code: 'ERR_INVALID_OPTION' }, 'options checked up front')
})

t.test('ReplayDiffer: framing repairs and errors', async (t) => {
  const d = new ReplayDiffer()
  t.same(d.push({ type: 'end', id: 'x' }), [], 'an end without a message is nothing')
  t.throws(() => d.push({ type: 'chunk', kind: 'text', text: 'a', t: 0 }), { code: 'ERR_BAD_LOG' })
  d.push({ type: 'message', id: 'a' })
  d.push({ type: 'chunk', kind: 'text', text: 'hi', t: 0 })
  t.same(d.push({ type: 'message', id: 'b' }), [{ op: 'complete', index: 0 }, { op: 'end', id: 'a' }, { op: 'message', id: 'b' }], 'a new message ends the open one')
  t.same(d.end(), [{ op: 'end', id: 'b' }])
  t.same(d.end(), [])
  const small = new ReplayDiffer({ maxBytes: 3 })
  small.push({ type: 'message', id: 'a' })
  t.throws(() => small.push({ type: 'chunk', kind: 'text', text: 'four', t: 0 }), new TagstreamError('ERR_MESSAGE_TOO_LARGE', ''))
  t.same(await all(replayDiffs([turn('a', ['text', 'x'])])), await all(replayDiffs(turn('a', ['text', 'x']))), 'batches or events alike')
})

t.test('pace: speed 0 passes through; a speed keeps the events and their order; bad speeds refused', async (t) => {
  const events = [...turn('a', ['text', 'x'], ['text', 'y']), ...turn('b', ['text', 'z'])]
  t.same(await all(pace(events)), events)
  t.same(await all(pace(events, { speed: 1000 })), events)
  const batches = await all(pace([events.slice(0, 3), events.slice(3)], { speed: 1 }))
  t.same(batches.flat(), events, 'batches are cut where a chunk waits, never reordered')
  t.same(await all(pace([events], { speed: 0 })), [events])
  for (const speed of [-1, NaN, Infinity, '2' as unknown as number]) await t.rejects(all(pace(events, { speed })), { code: 'ERR_INVALID_OPTION' })
  const ac = new AbortController()
  const slow: ReplayEvent[] = [{ type: 'message', id: 'a' }, { type: 'chunk', kind: 'text', text: 'x', t: 60_000 }]
  const p = all(pace(slow, { speed: 1, signal: ac.signal }))
  setTimeout(() => ac.abort(), 5)
  await t.rejects(p, { name: 'AbortError' })
})

t.test('replayTurns: one stream per turn; an abandoned turn is passed over', async (t) => {
  const events = [...turn('a', ['text', 'x'], ['text', 'y']), ...turn('b', ['reasoning', 'r'], ['text', 'z']), { type: 'message', id: 'c', meta: { k: 1 } } as ReplayEvent, { type: 'chunk', kind: 'text', text: 'w', t: 0 } as ReplayEvent, { type: 'message', id: 'd' } as ReplayEvent]
  const seen: string[] = []
  for await (const tr of replayTurns(events)) {
    if (tr.id === 'a') {
      for await (const c of tr.chunks) {
        seen.push(`a:${c.text}`)
        break // abandon after the first chunk
      }
      continue
    }
    const texts: string[] = []
    for await (const c of tr.chunks) texts.push(c.text)
    seen.push(`${tr.id}${tr.meta === undefined ? '' : JSON.stringify(tr.meta)}:${texts.join('')}`)
  }
  t.same(seen, ['a:x', 'b:rz', 'c{"k":1}:w', 'd:'])
  const skipped: string[] = []
  for await (const tr of replayTurns((async function* () { yield* events })())) skipped.push(tr.id)
  t.same(skipped, ['a', 'b', 'c', 'd'], 'unread turns are skipped whole')
})

t.test('diffTurns: a replay\'s diff records, one stream per message; an abandoned one is passed over', async (t) => {
  const events = [...turn('a', ['text', 'Hi <read_file><path>x</path></read_file>'], ['text', ' then']), ...turn('b', ['text', 'Done.'])]
  const all: DiffRecord[] = []
  for await (const r of replayDiffs(events, { idGenerator: counterIds() })) all.push(r)
  const byTurn = new Map<string, Block[]>()
  let current = ''
  for (const r of all) {
    if (r.op === 'message') byTurn.set((current = r.id), [])
    else if (r.op !== 'end' && r.op !== 'diagnostic') byTurn.set(current, applyDiff(byTurn.get(current)!, r))
  }
  // read whole: each turn's diffs, without markers, give the same blocks
  const got = new Map<string, Block[]>()
  for await (const tr of diffTurns(all)) {
    let blocks: Block[] = []
    for await (const d of tr.diffs) {
      t.not(d.op, 'message')
      t.not(d.op, 'end')
      if (d.op !== 'diagnostic' && d.op !== 'message' && d.op !== 'end') blocks = applyDiff(blocks, d)
    }
    got.set(tr.id, blocks)
  }
  t.same([...got.entries()], [...byTurn.entries()])
  // abandon the first after one diff: the second still comes whole
  const counts: string[] = []
  for await (const tr of diffTurns((async function* () { yield* all })())) {
    let n = 0
    for await (const _ of tr.diffs) if (++n === 1 && tr.id === 'a') break
    counts.push(`${tr.id}:${n}`)
  }
  const inB = all.slice(all.findIndex((r) => r.op === 'message' && r.id === 'b') + 1).filter((r) => r.op !== 'end').length
  t.ok(inB > 1)
  t.same(counts, ['a:1', `b:${inB}`])
})

t.test('createReplayStream: bytes in, records out, in a pipeline; errors destroy it', async (t) => {
  const got: DiffRecord[] = []
  const sink = new Writable({ objectMode: true, write(r: DiffRecord, _e, cb) { got.push(r); cb() } })
  const log = ['{"meta":{"a":1}}\n{"t":0,"text":"Hi <read_fi"}\n', '{"t":5,"text":"le><path>a</path></read_file>"}\n']
  await pipeline(Readable.from(log.map((s) => Buffer.from(s))), createReplayStream({ file: 'l.jsonl' }), sink)
  const blocks = byTurn(t, got).get('turn-1')!
  t.same(blocks.map((b) => b.type), ['text', 'tool_use'])
  t.same(got[0], { op: 'message', id: 'turn-1', meta: { a: 1 } })
  await t.rejects(
    pipeline(Readable.from([Buffer.from('{"t":0,"text":"a"}\nnope\n')]), createReplayStream({ file: 'l.jsonl' }), new Writable({ objectMode: true, write(_r, _e, cb) { cb() } })),
    { code: 'ERR_BAD_LOG', message: /^l\.jsonl: line 2: / },
  )
})

t.test('the same log gives the same records, whatever the batching', async (t) => {
  const text = readFileSync('examples/logs/anthropic_messages.sse')
  const a = JSON.stringify(await all(replayDiffs(readLogBatches([text]))))
  const b = JSON.stringify(await all(replayDiffs(readLog(Array.from(text, (x) => Uint8Array.of(x))))))
  t.equal(a, b)
  const h = readFileSync('examples/logs/cline_task_history.json')
  t.equal(JSON.stringify(await all(replayDiffs(readClineHistory([h])))), JSON.stringify(await all(replayDiffs(readLogBatches([h], { format: 'cline' })))))
  const options: ReplayDiffOptions = { profile: 'robust' }
  t.equal(JSON.stringify(await all(replayDiffs(readLogBatches([h]), options))), JSON.stringify(await all(replayDiffs(readLog(Array.from(h, (x) => Uint8Array.of(x))), options))), 'with options too')
})
