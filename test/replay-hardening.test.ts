// Issue 11 / 12 hardening of the log readers: a history's message replayed as it is read (never
// split whole first), every reader bounded by maxBytes before it holds a line, event or value
// whole, a cut history keeping what it had, and every error naming the file and place.
import t from 'tap'
import fc from 'fast-check'
import {
  readChunkLog, readClineHistory, readOpenAISse, readLog, replayDiffs, ReplayDiffer, detectLogFormat, sniffLog,
  SYNTHETIC_INTERVAL_MS, TagstreamError, type ReplayEvent, type ReadLogOptions, type LogSource,
} from '../lib/index.js'
import { ChunkSplitter, splitIntoChunks } from '../lib/replay/events.js'
import { EventSize } from '../lib/replay/sse.js'
import { cutAt } from './helpers/arb.js'

type Reader = (source: LogSource, options?: ReadLogOptions) => AsyncIterable<ReplayEvent>

/** The events a read gives before it ends, and its error if it fails. */
async function read(reader: Reader, input: LogSource, options: ReadLogOptions = {}): Promise<{ events: ReplayEvent[]; error: unknown }> {
  const events: ReplayEvent[] = []
  try {
    for await (const e of reader(input, options)) events.push(e)
  } catch (error) {
    return { events, error }
  }
  return { events, error: undefined }
}

/** `s` cut at the given points (sorted, deduplicated, within the string). */

const spaceOrWord = fc.oneof(
  fc.constantFrom(' ', '\n', '\t', '  ', '\u00a0', '\u2003', '\r\n'),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom('😀', 'é', 'x'.repeat(17), 'ab'),
)
const text = fc.array(spaceOrWord, { maxLength: 30 }).map((a) => a.join(''))

t.test('ChunkSplitter: the chunks of splitIntoChunks, whatever the cuts', async (t) => {
  fc.assert(fc.property(text, fc.array(fc.nat(), { maxLength: 12 }), (s, cuts) => {
    const got: string[] = []
    const sp = new ChunkSplitter((c) => got.push(c))
    for (const piece of cutAt(s, cuts)) sp.push(piece)
    sp.end()
    return JSON.stringify(got) === JSON.stringify(splitIntoChunks(s))
  }), { numRuns: 2000 })
  // a long run of white space, one character at a time, is not rescanned (this would take
  // minutes if each piece re-read the run)
  const got: string[] = []
  const sp = new ChunkSplitter((c) => got.push(c))
  for (let i = 0; i < 200_000; i++) sp.push(' ')
  sp.push('end')
  sp.end()
  t.same(got.map((c) => c.length), [200_003])
})

// --- Cline histories: the same events as reading each message whole, however the file is cut ---

/** What the reader must give for a valid history: each assistant message's parts, split whole. */
function reference(history: { role: string; content: unknown }[]): ReplayEvent[] {
  const out: ReplayEvent[] = []
  let turn = 0
  history.forEach((m, index) => {
    if (m.role !== 'assistant') return
    const id = `turn-${++turn}`
    out.push({ type: 'message', id, meta: { index } })
    const parts = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content as Record<string, unknown>[]
    let tm = 0
    let hadText = false
    for (const [i, p] of parts.entries()) {
      if (p.type === 'tool_use') {
        // a native call (issue 15): its input as JSON, in the chunks of the text
        const key = String(i)
        out.push({ type: 'tool', key, id: p.id as string, name: p.name as string, args: '', t: tm })
        tm += SYNTHETIC_INTERVAL_MS
        for (const piece of splitIntoChunks(JSON.stringify(p.input))) {
          out.push({ type: 'tool', key, args: piece, t: tm })
          tm += SYNTHETIC_INTERVAL_MS
        }
        out.push({ type: 'tool_end', key })
        continue
      }
      const field = p.type === 'text' ? 'text' : p.type === 'thinking' ? 'thinking' : null
      if (field === null) continue
      let whole = p[field] as string
      if (field === 'text') {
        if (hadText) whole = '\n\n' + whole
        hadText = true
      }
      for (const piece of splitIntoChunks(whole)) {
        out.push({ type: 'chunk', kind: field === 'text' ? 'text' : 'reasoning', text: piece, t: tm })
        tm += SYNTHETIC_INTERVAL_MS
      }
    }
    out.push({ type: 'end', id })
  })
  return out
}

/** An object with its keys in the given order (JSON.stringify keeps insertion order). */
const ordered = (entries: [string, unknown][], flip: boolean): Record<string, unknown> => Object.fromEntries(flip ? entries.reverse() : entries)

const part = fc.oneof(
  fc.tuple(text, fc.boolean()).map(([s, flip]) => ordered([['type', 'text'], ['text', s]], flip)),
  fc.tuple(text, fc.boolean()).map(([s, flip]) => ordered([['type', 'thinking'], ['thinking', s], ['signature', 'sig']], flip)),
  fc.tuple(text, fc.boolean()).map(([s, flip]) => ordered([['type', 'tool_use'], ['id', 'x'], ['name', 'read_file'], ['input', { path: s, n: [1, { a: null }] }]], flip)),
  fc.constant({ type: 'image', source: { type: 'base64', data: 'AAAA' } }),
)
const message = fc.tuple(fc.constantFrom('user', 'assistant', 'assistant'), fc.oneof(text, fc.array(part, { maxLength: 5 })), fc.boolean())
  .map(([role, content, flip]) => ordered([['role', role], ['content', content]], flip) as { role: string; content: unknown })
const history = fc.array(message, { maxLength: 6 })

t.test('Cline history: the events of each message read whole, whatever the cuts, key order or indentation', async (t) => {
  await fc.assert(fc.asyncProperty(history, fc.boolean(), fc.array(fc.nat(), { maxLength: 10 }), async (h, pretty, cuts) => {
    const json = JSON.stringify(h, null, pretty ? 2 : undefined)
    const { events, error } = await read(readClineHistory, cutAt(json, cuts))
    t.equal(error, undefined)
    return JSON.stringify(events) === JSON.stringify(reference(h))
  }), { numRuns: 400 })
})

/** A source that counts what it has given. */
function counting(pieces: Iterable<string>): { source: AsyncIterable<string>; given: () => number } {
  let given = 0
  return {
    source: (async function* () {
      for (const p of pieces) {
        given += p.length
        yield p
      }
    })(),
    given: () => given,
  }
}

function* inPieces(s: string, size: number): Generator<string> {
  for (let i = 0; i < s.length; i += size) yield s.slice(i, i + size)
}

t.test('Cline history: a big message is replayed as it is read, not after', async (t) => {
  const body = 'Some words <read_file><path>a.ts</path></read_file> and more\n'.repeat(40_000) // 2.4 MB
  const json = JSON.stringify([{ role: 'user', content: 'go' }, { role: 'assistant', content: [{ type: 'text', text: body }] }])
  const { source, given } = counting(inPieces(json, 65536))
  let atFirstChunk = -1
  let atFirstDiff = -1
  let chunks = 0
  const differ = new ReplayDiffer()
  for await (const e of readClineHistory(source)) {
    if (e.type !== 'chunk') continue
    chunks++
    if (atFirstChunk < 0) atFirstChunk = given()
    if (atFirstDiff < 0 && differ.push({ type: 'message', id: 'm' }) && differ.push(e).some((r) => r.op === 'add')) atFirstDiff = given()
  }
  t.ok(atFirstChunk > 0 && atFirstChunk <= 2 * 65536, `the first chunk came after ${atFirstChunk} of ${json.length} characters`)
  t.ok(atFirstDiff > 0 && atFirstDiff <= 2 * 65536, 'and its first diff with it')
  t.equal(chunks, splitIntoChunks(body).length)
})

t.test('Cline history cut short: its complete messages, and what the cut one had, then the error', async (t) => {
  const h = [1, 2, 3].map((i) => ({ role: 'assistant', content: [{ type: 'text', text: `message ${i}` }] }))
  const json = JSON.stringify([...h, { role: 'assistant', content: [{ type: 'text', text: 'the fourth is cut' }] }])
  const cut = json.slice(0, json.lastIndexOf('cut') + 3)
  for (const pieces of [[cut], [...inPieces(cut, 7)]]) {
    const { events, error } = await read(readClineHistory, pieces, { file: 'h.json' })
    t.same(events.filter((e) => e.type === 'end').map((e) => e.id), ['turn-1', 'turn-2', 'turn-3'], '3 complete turns')
    t.same(events.filter((e) => e.type === 'chunk').map((e) => (e as { text: string }).text).join(''), 'message 1message 2message 3the fourth is cut', 'and the words of the fourth that were read')
    t.match(error, { code: 'ERR_BAD_LOG', message: /^h\.json: line 1: invalid JSON/ })
  }
  // in a long line, the error names the span of columns, the same however the input came
  const long = JSON.stringify([{ role: 'assistant', content: 'w '.repeat(10_000) }, { role: 'user', content: 'x' }]).replace('"user"', 'user')
  for (const pieces of [[long], [...inPieces(long, 1000)], [...inPieces(long, 3)]]) {
    t.match((await read(readClineHistory, pieces)).error, { message: /^<input>: line 1, columns 16385-24576: invalid JSON \(/, details: { line: 1 } })
  }
  // 50 complete messages and a cut one: all 50
  const many = JSON.stringify(Array.from({ length: 51 }, (_, i) => ({ role: 'assistant', content: `m${i}` })))
  const { events, error } = await read(readClineHistory, [many.slice(0, -10)])
  t.equal(events.filter((e) => e.type === 'end').length, 50)
  t.ok(error instanceof TagstreamError)
})

t.test('Cline history: content before role, text before type, waits bounded by maxBytes', async (t) => {
  const h = JSON.stringify([{ content: [{ text: 'late type', type: 'text' }], role: 'assistant' }, { content: 'not replayed', role: 'user' }])
  const { events } = await read(readClineHistory, [h])
  t.same(events, reference([{ role: 'assistant', content: [{ type: 'text', text: 'late type' }] }]))
  const big = JSON.stringify([{ role: 'assistant', content: [{ text: 'x'.repeat(500), type: 'text' }] }])
  const r = await read(readClineHistory, [big], { file: 'h', maxBytes: 100 })
  t.match(r.error, { code: 'ERR_MESSAGE_TOO_LARGE', message: 'h: messages[0].content[0]: a "text" read before the part\'s "type" exceeds maxBytes (100)' })
  const big2 = JSON.stringify([{ content: 'y '.repeat(300), role: 'assistant' }])
  const r2 = await read(readClineHistory, [big2], { file: 'h', maxBytes: 100 })
  t.match(r2.error, { code: 'ERR_MESSAGE_TOO_LARGE', message: 'h: messages[0]: the content read before "role" exceeds maxBytes (100)' })
  t.same(r2.events, [], 'nothing of a message whose role is not known')
  // a tool_use part's input before the role waits under the same bound
  const bigTool = JSON.stringify([{ content: [{ type: 'tool_use', id: 'toolu_1', name: 'write_to_file', input: { path: 'a', content: 'x'.repeat(5000) } }], role: 'assistant' }])
  const rTool = await read(readClineHistory, [bigTool], { file: 'h', maxBytes: 100 })
  t.match(rTool.error, { code: 'ERR_MESSAGE_TOO_LARGE', message: 'h: messages[0]: the content read before "role" exceeds maxBytes (100)' })
  t.same(rTool.events, [], 'nothing of it is replayed')
  // a user message of any size is passed over without being kept, and a tool_use part whose
  // type, id and name come first is streamed, not kept (its limit is the replay's, per turn)
  const user = JSON.stringify([{ role: 'user', content: 'z'.repeat(5000) }, { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'n', input: { a: 'z'.repeat(5000) } }, { type: 'text', text: 'ok' }] }])
  const r3 = await read(readClineHistory, [user], { maxBytes: 100 })
  t.equal(r3.error, undefined)
  t.same(r3.events.filter((e) => e.type === 'chunk').map((e) => (e as { text: string }).text), ['ok'])
  t.equal(r3.events.filter((e) => e.type === 'tool').map((e) => (e as { args: string }).args).join(''), JSON.stringify({ a: 'z'.repeat(5000) }))
  // an input before the part's type, id and name waits, bounded
  const early = JSON.stringify([{ role: 'assistant', content: [{ input: { a: 'z'.repeat(500) }, type: 'tool_use', id: 't', name: 'n' }] }])
  t.match((await read(readClineHistory, [early], { file: 'h', maxBytes: 100 })).error, { code: 'ERR_MESSAGE_TOO_LARGE', message: 'h: messages[0].content[0]: an "input" read before the part\'s "type", "id" and "name" exceeds maxBytes (100)' })
  t.same((await read(readClineHistory, [early], { file: 'h' })).events.filter((e) => e.type === 'tool' || e.type === 'tool_end').length, 1 + splitIntoChunks(JSON.stringify({ a: 'z'.repeat(500) })).length + 1)
  // a key of another type's field, or a field given twice, is passed over (the first one counts)
  const odd = '[{"role":"assistant","content":[{"type":"text","thinking":"no","text":"yes","text":"again"}]}]'
  t.same((await read(readClineHistory, [odd])).events.filter((e) => e.type === 'chunk').map((e) => (e as { text: string }).text), ['yes'])
  await t.rejects(read(readClineHistory, ['[]'], { maxBytes: -1 }).then((r) => { throw r.error }), { code: 'ERR_INVALID_OPTION' })
})

// --- maxBytes before a line or event is held whole: endless sources must fail, not hang ----------

function* endless(head: string, piece: string): Generator<string> {
  yield head
  for (;;) yield piece
}

t.test('a chunk-log line over maxBytes fails naming it, before it is read whole', async (t) => {
  const head = '{"t":0,"text":"a"}\n{"t":1,"text":"b"}\n{"t":2,"text":"'
  const { events, error } = await read(readChunkLog, endless(head, 'x'.repeat(100)), { file: 'big.jsonl', maxBytes: 10_000 })
  t.match(error, { code: 'ERR_MESSAGE_TOO_LARGE', message: 'big.jsonl: line 3: a line exceeds maxBytes (10000)', details: { file: 'big.jsonl', line: 3, maxBytes: 10_000 } })
  t.same(events.map((e) => e.type === 'chunk' ? e.text : e.type), ['message', 'a', 'b'], 'the lines before it came out')
  // a line exactly at the limit is read
  const line = JSON.stringify({ t: 0, text: 'y'.repeat(80) })
  const ok = await read(readChunkLog, [line + '\n' + line], { maxBytes: line.length })
  t.equal(ok.error, undefined)
  t.equal(ok.events.length, 4)
})

t.test('an SSE event over maxBytes fails naming it, before it is read whole', async (t) => {
  const ev = (s: string): string => `data: ${JSON.stringify({ id: 'a', choices: [{ index: 0, delta: { content: s } }] })}\n\n`
  const one = await read(readOpenAISse, endless(ev('a') + ev('b') + 'data: {"choices":"', 'x'.repeat(100)), { file: 'c.sse', maxBytes: 10_000 })
  t.match(one.error, { code: 'ERR_MESSAGE_TOO_LARGE', message: 'c.sse: event 3: an event exceeds maxBytes (10000)', details: { event: 3 } })
  t.same(one.events.filter((e) => e.type === 'chunk').map((e) => (e as { text: string }).text), ['a', 'b'])
  // many short data lines of one event add up
  const lines = await read(readOpenAISse, endless(ev('a'), 'data: xxxxxxxx\r\n'), { file: 'c.sse', maxBytes: 10_000 })
  t.match(lines.error, { code: 'ERR_MESSAGE_TOO_LARGE', message: /^c\.sse: event 2: / })
})

t.test('EventSize: where an event passes the limit does not depend on the cuts', async (t) => {
  const sse = fc.array(fc.oneof(fc.constantFrom('\n', '\r', '\r\n', 'data: ', ':c'), fc.string({ maxLength: 12 })), { maxLength: 40 }).map((a) => a.join(''))
  fc.assert(fc.property(sse, fc.nat({ max: 40 }), fc.array(fc.nat(), { maxLength: 8 }), (s, limit, cuts) => {
    const whole = new EventSize(limit).scan(s)
    const size = new EventSize(limit)
    let at = -1
    let offset = 0
    for (const piece of cutAt(s, cuts)) {
      const over = size.scan(piece)
      if (over >= 0) {
        at = offset + over
        break
      }
      offset += piece.length
    }
    return at === whole
  }), { numRuns: 3000 })
})

t.test('a turn over maxBytes, text or reasoning, names the file and the turn', async (t) => {
  const events: ReplayEvent[] = [{ type: 'message', id: 'turn-1' }, { type: 'end', id: 'turn-1' }, { type: 'message', id: 'turn-2' }]
  for (let i = 0; i < 20; i++) events.push({ type: 'chunk', kind: 'text', text: 'abcdefghij', t: i })
  const seen: string[] = []
  await t.rejects((async () => {
    for await (const r of replayDiffs(events, { maxBytes: 100, file: 'log.jsonl' })) seen.push(r.op)
  })(), { code: 'ERR_MESSAGE_TOO_LARGE', message: /^log\.jsonl: turn-2: message exceeds maxBytes \(100\) at byte 110$/, details: { file: 'log.jsonl', turn: 'turn-2' } })
  t.same(seen.slice(0, 3), ['message', 'end', 'message'], 'what came before stays')
  const differ = new ReplayDiffer({ maxBytes: 5 })
  differ.push({ type: 'message', id: 'turn-1' })
  t.throws(() => differ.push({ type: 'chunk', kind: 'reasoning', text: 'thinking…', t: 0 }), { code: 'ERR_MESSAGE_TOO_LARGE', message: '<input>: turn-1: reasoning exceeds maxBytes (5)' })
  t.throws(() => new ReplayDiffer().push({ type: 'chunk', kind: 'text', text: 'x', t: 0 }), { code: 'ERR_BAD_LOG', message: /^<input>: a chunk outside any message/ })
  // an endless history message stops at maxBytes through the whole replay
  await t.rejects((async () => {
    // eslint-disable-next-line @typescript-eslint/no-unused-vars
    for await (const _ of replayDiffs(readLog(endless('[{"role":"assistant","content":"', 'word '.repeat(20))), { maxBytes: 50_000, file: 'h.json' }));
  })(), { code: 'ERR_MESSAGE_TOO_LARGE', message: /^h\.json: turn-1: message exceeds maxBytes \(50000\)/ })
})

// --- inputs that are no log ----------------------------------------------------------------------

t.test('empty input, and a JSON document that is no log, say so', async (t) => {
  for (const input of [[], [''], ['  \n\t'], [Buffer.from([0xef, 0xbb, 0xbf])]] as LogSource[]) {
    const r = await read(readLog, input, { file: 'e.txt' })
    t.match(r.error, { code: 'ERR_BAD_LOG', message: 'e.txt: empty input', details: { file: 'e.txt' } })
    const f = await read(readLog, input, { format: 'chunklog' })
    t.match(f.error, { code: 'ERR_BAD_LOG', message: '<input>: empty input' }, 'with the format named too')
  }
  t.equal((await read(readLog, ['[]'])).error, undefined, 'an empty history is a history')
  const pkg = JSON.stringify({ name: 'x', version: '1.0.0' }, null, 2)
  t.equal(detectLogFormat(pkg), undefined)
  t.equal(detectLogFormat('{"t":0,"text":"a"}\n{"t"'), 'chunklog')
  t.equal(detectLogFormat('{"t":0,'), 'chunklog', 'a first line longer than the head: still a chunk log')
  const doc = await read(readLog, [pkg], { file: 'package.json' })
  t.match(doc.error, {
    code: 'ERR_BAD_LOG',
    message: 'package.json: a JSON document, not a log tagstream knows: expected a chunk log (JSONL lines {"t", "text"}), a Cline history (a JSON array of messages), or an OpenAI or Anthropic SSE capture; --format picks one (chunklog, cline, openai, anthropic)',
  })
  const plain = await read(readLog, ['Hello <read_file>'], { file: 'r.txt' })
  t.match(plain.error, { message: /^r\.txt: line 1: not a log tagstream knows: expected .*--format picks one/ })
  t.equal((await sniffLog([''])).empty, true)
  t.equal((await sniffLog(['[]'])).empty, false)
})

t.test('with the format given, a live source is not held up by the check for empty input', async (t) => {
  let release!: () => void
  const gate = new Promise<void>((resolve) => { release = resolve })
  const source = (async function* () {
    yield ' \n'
    yield '{"t":0,"text":"a"}\n'
    await gate
    yield '{"t":1,"text":"b"}\n'
  })()
  const it = readLog(source, { format: 'chunklog' })[Symbol.asyncIterator]()
  t.same((await it.next()).value, { type: 'message', id: 'turn-1' }, 'the first event before the source goes on (this would hang if it waited for 4 KiB)')
  t.same((await it.next()).value, { type: 'chunk', kind: 'text', text: 'a', t: 0 })
  release()
  const rest: ReplayEvent[] = []
  for (let r = await it.next(); r.done !== true; r = await it.next()) rest.push(r.value)
  t.same(rest.map((e) => e.type), ['chunk', 'end'])
})
