// Log readers (SPEC 8): chunk logs, Cline histories, SSE captures; framing, timings, and
// malformed input named by file and line (or event), fatal or skipped, never dropped silently.
import t from 'tap'
import { Readable } from 'node:stream'
import {
  readChunkLog, readClineHistory, readOpenAISse, readAnthropicSse, readLog, readLogBatches, detectLogFormat,
  SYNTHETIC_INTERVAL_MS, TagstreamError, type ReplayEvent, type ReadLogOptions, type LogSource,
} from '../lib/index.js'
import { peek } from '../lib/replay/source.js'

type Reader = (source: LogSource, options?: ReadLogOptions) => AsyncIterable<ReplayEvent>

async function collect(reader: Reader, input: LogSource, options: ReadLogOptions = {}): Promise<ReplayEvent[]> {
  const out: ReplayEvent[] = []
  for await (const e of reader(input, options)) out.push(e)
  return out
}

/** The events, and the warnings, of a read in skip mode. */
async function skipping(reader: Reader, input: LogSource): Promise<{ events: ReplayEvent[]; warnings: string[] }> {
  const warnings: string[] = []
  const events = await collect(reader, input, { file: 'x', onError: 'skip', onWarning: (w) => warnings.push(w.message) })
  return { events, warnings }
}

/** The text of each turn, by kind. */
function turns(events: ReplayEvent[]): { id: string; text: string; reasoning: string }[] {
  const out: { id: string; text: string; reasoning: string }[] = []
  for (const e of events) {
    if (e.type === 'message') out.push({ id: e.id, text: '', reasoning: '' })
    else if (e.type === 'chunk') out[out.length - 1]![e.kind === 'text' ? 'text' : 'reasoning'] += e.text
  }
  return out
}

const lines = (...objs: unknown[]): string => objs.map((o) => (typeof o === 'string' ? o : JSON.stringify(o))).join('\n') + '\n'

t.test('chunk log: one turn without meta, chunks with their times', async (t) => {
  const ev = await collect(readChunkLog, [lines({ t: 0, text: 'Hi ' }, { t: 12.5, text: '<read_file>' })])
  t.same(ev, [
    { type: 'message', id: 'turn-1' },
    { type: 'chunk', kind: 'text', text: 'Hi ', t: 0 },
    { type: 'chunk', kind: 'text', text: '<read_file>', t: 12.5 },
    { type: 'end', id: 'turn-1' },
  ])
})

t.test('chunk log: each meta line starts a turn; reasoning lines; unknown keys ignored', async (t) => {
  const log = lines({ meta: { model: 'm' } }, { t: 0, reasoning: 'hmm' }, { t: 1, text: 'a', extra: true }, { meta: {} }, { t: 0, text: 'b' })
  const ev = await collect(readChunkLog, [log])
  t.same(ev[0], { type: 'message', id: 'turn-1', meta: { model: 'm' } })
  t.same(turns(ev), [{ id: 'turn-1', text: 'a', reasoning: 'hmm' }, { id: 'turn-2', text: 'b', reasoning: '' }])
  t.equal(ev.filter((e) => e.type === 'end').length, 2)
  t.same(await collect(readChunkLog, ['']), [], 'an empty log has no turn')
  t.same(await collect(readChunkLog, [lines({ meta: {} })]), [{ type: 'message', id: 'turn-1', meta: {} }, { type: 'end', id: 'turn-1' }])
})

t.test('chunk log: bytes split inside characters, CRLF, BOM, chunks cut anywhere', async (t) => {
  const text = lines({ t: 0, text: 'é😀' }, { t: 1, text: 'ü' }).replaceAll('\n', '\r\n')
  const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)])
  const pieces = Array.from(bytes, (b) => Uint8Array.of(b))
  t.same(turns(await collect(readChunkLog, pieces)), [{ id: 'turn-1', text: 'é😀ü', reasoning: '' }])
  t.same(turns(await collect(readChunkLog, Readable.from([bytes]))), [{ id: 'turn-1', text: 'é😀ü', reasoning: '' }], 'a Node Readable')
})

t.test('chunk log: a malformed line fails naming the file and line, blank lines counted', async (t) => {
  const log = lines({ t: 0, text: 'a' }, '', '   ', '{"t": 1, "text": ', { t: 2, text: 'b' })
  const events: ReplayEvent[] = []
  let err: unknown
  try {
    for await (const e of readChunkLog([log], { file: 'run.jsonl' })) events.push(e)
  } catch (e) {
    err = e
  }
  t.ok(err instanceof TagstreamError)
  t.equal((err as TagstreamError).code, 'ERR_BAD_LOG')
  t.match((err as TagstreamError).message, /^run\.jsonl: line 4: not JSON/)
  t.same((err as TagstreamError).details, { file: 'run.jsonl', line: 4 })
  t.same(events, [{ type: 'message', id: 'turn-1' }, { type: 'chunk', kind: 'text', text: 'a', t: 0 }], 'the events before the bad line came out')
})

t.test('chunk log: every bad shape is named; skip mode warns and goes on', async (t) => {
  const bad = [
    ['[1]', /line 1: expected an object/],
    ['{"meta": 3}', /line 1: "meta" must be an object/],
    ['{"text": "a"}', /^f: line 1: "t" is missing \(a chunk log line is \{"t": <ms>, "text": "…"\} or \{"meta": \{…\}\}\)$/],
    ['{"foo": 1}', /^f: line 1: "t" is missing/],
    ['{"t": -1, "text": "a"}', /^f: line 1: "t" must be a number of milliseconds >= 0, got number -1$/],
    ['{"t": "5", "text": "a"}', /^f: line 1: "t" must be a number of milliseconds >= 0, got a string "5"$/],
    ['{"t": 1}', /^f: line 1: expected a string "text" \(or "reasoning"\); it has neither$/],
    ['{"t": 1, "text": 5}', /^f: line 1: expected a string "text" \(or "reasoning"\); "text" is number 5$/],
  ] as const
  for (const [line, re] of bad) {
    await t.rejects(collect(readChunkLog, [line + '\n'], { file: 'f' }), { code: 'ERR_BAD_LOG', message: re }, line)
  }
  const log = lines({ t: 0, text: 'a' }, 'nope', '[1]', { t: 1, text: 'b' })
  const { events, warnings } = await skipping(readChunkLog, [log])
  t.same(turns(events), [{ id: 'turn-1', text: 'ab', reasoning: '' }])
  t.equal(warnings.length, 2)
  t.match(warnings[0], /^x: line 2: not JSON .*\(skipped\)$/)
  t.match(warnings[1], /^x: line 3: expected an object/)
})

t.test('skip mode without a handler still reports, as a process warning', async (t) => {
  const seen: string[] = []
  const onWarning = (w: Error): void => {
    seen.push(w.message)
  }
  process.on('warning', onWarning)
  t.teardown(() => process.off('warning', onWarning))
  await collect(readChunkLog, ['nope\n'], { onError: 'skip' })
  await new Promise((r) => setImmediate(r))
  t.match(seen, [/<input>: line 1: not JSON/])
  await t.rejects(collect(readChunkLog, [''], { onError: 'later' as 'skip' }), { code: 'ERR_INVALID_OPTION' })
})

t.test('a failing source fails the read with its own error', async (t) => {
  const source = (async function* () {
    yield lines({ t: 0, text: 'a' })
    throw new Error('disk on fire')
  })()
  await t.rejects(collect(readChunkLog, source), { message: 'disk on fire' })
  const source2 = (async function* () {
    yield '[{"role":"assistant","content":"x"}'
    throw new Error('disk on fire')
  })()
  await t.rejects(collect(readClineHistory, source2), { message: 'disk on fire' })
})

t.test('stopping early releases the source', async (t) => {
  let closed = 0
  const source = (async function* () {
    try {
      for (let i = 0; ; i++) yield lines({ t: i, text: 'x' })
    } finally {
      closed++
    }
  })()
  for await (const e of readChunkLog(source)) if (e.type === 'chunk' && e.t > 3) break
  await new Promise((r) => setImmediate(r))
  t.equal(closed, 1)
  const detected = (async function* () {
    try {
      yield lines({ t: 0, text: 'x' })
      for (let i = 1; ; i++) yield lines({ t: i, text: 'x' })
    } finally {
      closed++
    }
  })()
  for await (const e of readLog(detected)) if (e.type === 'chunk') break
  await new Promise((r) => setImmediate(r))
  t.equal(closed, 2, 'also through format detection')
  const five = (async function* () {
    try {
      for (let i = 0; i < 5; i++) yield 'abcde'
    } finally {
      closed++
    }
  })()
  const p = await peek(five, 8)
  t.equal(p.head, 'abcdeabcde')
  for await (const c of p.source) if (c === 'abcde') break // while still in the peeked head
  t.equal(closed, 3, 'a stop inside the peeked head releases the source')
})

const history = [
  { role: 'user', content: 'do it' },
  { role: 'assistant', content: [
    { type: 'thinking', thinking: 'Plan first.', signature: 'sig' },
    { type: 'text', text: 'Reading.\n<read_file>\n<path>a.ts</path>\n</read_file>' },
    { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.ts' } },
  ] },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'x' }] },
  { role: 'assistant', content: 'Done.' },
  { role: 'assistant', content: [{ type: 'text', text: 'one' }, { type: 'image', source: {} }, { type: 'text', text: 'two' }] },
]

t.test('Cline history: assistant turns only; text, thinking as reasoning, other parts passed over', async (t) => {
  const ev = await collect(readClineHistory, [JSON.stringify(history)])
  t.same(turns(ev), [
    { id: 'turn-1', text: 'Reading.\n<read_file>\n<path>a.ts</path>\n</read_file>', reasoning: 'Plan first.' },
    { id: 'turn-2', text: 'Done.', reasoning: '' },
    { id: 'turn-3', text: 'one\n\ntwo', reasoning: '' },
  ])
  t.same(ev[0], { type: 'message', id: 'turn-1', meta: { index: 1 } })
  const times = ev.flatMap((e) => (e.type === 'chunk' ? [e.t] : []))
  t.same(times.slice(0, 3), [0, SYNTHETIC_INTERVAL_MS, 2 * SYNTHETIC_INTERVAL_MS], 'synthetic pace')
  const pieces = ev.flatMap((e) => (e.type === 'chunk' ? [e.text] : []))
  t.ok(pieces.every((p) => p.trim().length <= 16), 'word-sized chunks')
  t.same(turns(await collect(readClineHistory, [JSON.stringify(history, null, 2)])), turns(ev), 'pretty-printed alike')
})

t.test('Cline history: invalid JSON names its line and is fatal even in skip mode', async (t) => {
  const text = JSON.stringify(history, null, 2).split('\n')
  text[6] = text[6] + ' oops'
  const bad = text.join('\n')
  await t.rejects(collect(readClineHistory, [bad], { file: 'h.json' }), { code: 'ERR_BAD_LOG', message: /^h\.json: line 7: invalid JSON/ })
  await t.rejects(collect(readClineHistory, [bad], { file: 'h.json', onError: 'skip', onWarning: () => {} }), { message: /line 7/ })
  const chars = Array.from(bad) // the line is right whatever the chunking
  await t.rejects(collect(readClineHistory, chars, { file: 'h.json' }), { message: /^h\.json: line 7: / })
  await t.rejects(collect(readClineHistory, ['{"a":1}'], { file: 'h.json' }), { code: 'ERR_BAD_LOG', message: /^h\.json: line 1: / })
  await t.rejects(collect(readClineHistory, ['[{"role":"assistant"'], { file: 'h.json' }), { code: 'ERR_BAD_LOG', message: /^h\.json: line 1: invalid JSON/ })
})

t.test('Cline history: bad messages and parts are named; skip mode goes on', async (t) => {
  const bad = [
    [[3], /messages\[0\]: expected an object/],
    [[{ content: 'x' }], /^h: messages\[0\]: "role" is missing \(a message is \{"role", "content"\}\)$/],
    [[{ role: 5, content: 'x' }], /^h: messages\[0\]: "role" must be a string, got number 5$/],
    [[{ role: 'assistant' }], /^h: messages\[0\]: "content" is missing/],
    [[{ role: 'assistant', content: 5 }], /^h: messages\[0\]: "content" must be a string or an array of parts, got number 5$/],
    [[{ role: 'assistant', content: [{ text: 'x' }] }], /^h: messages\[0\]\.content\[0\]: a part needs a string "type"$/],
    [[{ role: 'assistant', content: [{ type: ['text'], text: 'x' }] }], /^h: messages\[0\]\.content\[0\]: "type" must be a string, got an array$/],
    [[{ role: 'assistant', content: [{ type: 'text', text: { a: 1 } }] }], /^h: messages\[0\]\.content\[0\]: a text part needs a string "text", got an object$/],
    [[{ role: 'assistant', content: [{ text: null, type: 'text' }] }], /^h: messages\[0\]\.content\[0\]: a text part needs a string "text", got null$/],
    [[{ role: 'assistant', content: ['x'] }], /messages\[0\]\.content\[0\]: expected a part/],
    [[{ role: 'assistant', content: [{ type: 'text' }] }], /messages\[0\]\.content\[0\]: a text part needs a string "text", got none$/],
    [['x'.repeat(100)], /^h: messages\[0\]: expected an object \{role, content\}, got a string "x{40}"…$/],
  ] as const
  for (const [h, re] of bad) await t.rejects(collect(readClineHistory, [JSON.stringify(h)], { file: 'h' }), { code: 'ERR_BAD_LOG', message: re })
  const { events, warnings } = await skipping(readClineHistory, [JSON.stringify([3, { role: 'assistant', content: ['x', { type: 'text', text: 'ok' }] }, { role: 'assistant', content: 'next' }])])
  t.same(turns(events), [{ id: 'turn-1', text: 'ok', reasoning: '' }, { id: 'turn-2', text: 'next', reasoning: '' }])
  t.equal(warnings.length, 2)
})

const oai = (id: string, delta: Record<string, unknown>, extra: Record<string, unknown> = {}): string =>
  `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', model: 'gpt-x', choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`

t.test('OpenAI SSE: a turn per completion, [DONE] or a new id ends it; reasoning_content is reasoning', async (t) => {
  const capture = oai('a', { role: 'assistant', content: '' }) + oai('a', { reasoning_content: 'think' }) + oai('a', { content: 'Hi ' })
    + ': keep-alive\n\n' + oai('a', { content: '<read_file>' }) + 'data: [DONE]\n\n'
    + oai('b', { content: 'two' }) + oai('c', { reasoning: 'r' }) + `data: ${JSON.stringify({ id: 'c', choices: [] , usage: {} })}\n\n`
    + `data: ${JSON.stringify({ id: 'c', choices: [{ index: 1, delta: { content: 'other answer' } }] })}`
  const ev = await collect(readOpenAISse, [capture])
  t.same(turns(ev), [
    { id: 'turn-1', text: 'Hi <read_file>', reasoning: 'think' },
    { id: 'turn-2', text: 'two', reasoning: '' },
    { id: 'turn-3', text: '', reasoning: 'r' },
  ])
  t.same(ev[0], { type: 'message', id: 'turn-1', meta: { id: 'a', model: 'gpt-x' } })
  t.equal(ev.at(-1)!.type, 'end', 'a capture cut before [DONE] still ends its turn')
})

t.test('OpenAI SSE: malformed events are named by number; skip goes on', async (t) => {
  const bad = [
    ['data: {nope\n\n', /event 1: data is not JSON/],
    ['data: 5\n\n', /event 1: expected a chat\.completion\.chunk/],
    [`data: ${JSON.stringify({ error: { message: 'overloaded' } })}\n\n`, /event 1: the stream reported an error: overloaded/],
    [oai('a', { content: 'x' }) + 'garbage\n\n', /event 2: not an SSE line "garbage"/],
  ] as const
  for (const [capture, re] of bad) await t.rejects(collect(readOpenAISse, [capture], { file: 'o.sse' }), { code: 'ERR_BAD_LOG', message: re })
  const { events, warnings } = await skipping(readOpenAISse, [oai('a', { content: 'x' }) + 'data: {nope\n\n' + oai('a', { content: 'y' })])
  t.same(turns(events), [{ id: 'turn-1', text: 'xy', reasoning: '' }])
  t.match(warnings, [/^x: event 2: data is not JSON/])
})

const ant = (type: string, body: Record<string, unknown> = {}): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...body })}\n\n`
const delta = (d: Record<string, unknown>): string => ant('content_block_delta', { index: 0, delta: d })

t.test('Anthropic SSE: message_start … message_stop is a turn; thinking_delta is reasoning', async (t) => {
  const capture = ant('message_start', { message: { id: 'msg_1', model: 'claude-x' } })
    + ant('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '' } })
    + ant('ping') + delta({ type: 'thinking_delta', thinking: 'Let me ' }) + delta({ type: 'thinking_delta', thinking: 'see.' })
    + delta({ type: 'signature_delta', signature: 'sig' }) + ant('content_block_stop', { index: 0 })
    + ant('content_block_start', { index: 1, content_block: { type: 'text', text: 'Hi ' } })
    + delta({ type: 'text_delta', text: '<read_file>' }) + ant('some_future_event') + ant('message_delta', { delta: {} }) + ant('message_stop')
    + ant('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'no start' } })
  const ev = await collect(readAnthropicSse, [capture])
  t.same(turns(ev), [{ id: 'turn-1', text: 'Hi <read_file>', reasoning: 'Let me see.' }, { id: 'turn-2', text: 'no start', reasoning: '' }])
  t.same(ev[0], { type: 'message', id: 'turn-1', meta: { id: 'msg_1', model: 'claude-x' } })
  t.same(ev.filter((e) => e.type === 'chunk').map((e) => (e as { t: number }).t), [0, 30, 60, 90, 0])
})

t.test('Anthropic SSE: malformed events are named by number; skip goes on', async (t) => {
  const bad = [
    ['data: nope\n\n', /event 1: data is not JSON/],
    ['data: {"no":"type"}\n\n', /event 1: expected a stream event object/],
    [ant('error', { error: { type: 'overloaded_error', message: 'Overloaded' } }), /event 1: the stream reported an error: Overloaded/],
  ] as const
  for (const [capture, re] of bad) await t.rejects(collect(readAnthropicSse, [capture], { file: 'a.sse' }), { code: 'ERR_BAD_LOG', message: re })
  const { events, warnings } = await skipping(readAnthropicSse, [ant('message_start', { message: {} }) + 'data: nope\n\n' + delta({ type: 'text_delta', text: 'ok' })])
  t.same(turns(events), [{ id: 'turn-1', text: 'ok', reasoning: '' }])
  t.equal(warnings.length, 1)
})

t.test('format detection and readLog', async (t) => {
  t.equal(detectLogFormat('\uFEFF  [{"role":"user"}]'), 'cline')
  t.equal(detectLogFormat('{"t":0,"text":"a"}\n'), 'chunklog')
  t.equal(detectLogFormat(oai('a', { content: 'x' })), 'openai')
  t.equal(detectLogFormat(': comment\n' + oai('a', { content: 'x' })), 'openai')
  t.equal(detectLogFormat(ant('message_start', { message: {} })), 'anthropic')
  t.equal(detectLogFormat('data: {"type":"content_block_delta"}\n\n'), 'anthropic')
  t.equal(detectLogFormat('Hello <read_file>'), undefined)
  t.equal(detectLogFormat('data: {"other":"api"}\n\n'), undefined)
  for (const [file, text] of [['h', JSON.stringify(history)], ['c', lines({ t: 0, text: 'Done.' })], ['o', oai('a', { content: 'Done.' })], ['a', ant('message_start') + delta({ type: 'text_delta', text: 'Done.' })]]) {
    const ev = await collect(readLog, [text!], { file })
    t.ok(turns(ev).some((x) => x.text === 'Done.'), `${file} detected and read`)
  }
  t.same(turns(await collect(readLog, [lines({ t: 0, text: '[x' })], { format: 'chunklog' })), [{ id: 'turn-1', text: '[x', reasoning: '' }])
  let closed = false
  const plain = (async function* () {
    try {
      yield 'Hello '
      yield 'world'
    } finally {
      closed = true
    }
  })()
  await t.rejects(collect(readLog, plain, { file: 'reply.txt' }), { code: 'ERR_BAD_LOG', message: /^reply\.txt: line 1: not a log/ })
  t.ok(closed, 'the source of an unknown format is released')
  await t.rejects(collect(readLog, [''], { format: 'xml' as 'cline' }), { code: 'ERR_INVALID_OPTION' })
  const batches: ReplayEvent[][] = []
  for await (const b of readLogBatches([lines({ t: 0, text: 'a' }, { t: 1, text: 'b' })])) batches.push(b)
  t.ok(batches.length >= 1 && batches.every(Array.isArray))
  t.same(batches.flat().length, 4)
})
