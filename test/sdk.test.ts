// The official SDKs' streams, adapted to text chunks for the parser: each SDK talks to a local
// HTTP server (127.0.0.1 only) that serves a recorded SSE capture, as the real API would.
import t, { type Test } from 'tap'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { readFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import OpenAI from 'openai'
import Anthropic from '@anthropic-ai/sdk'
import {
  type ReplayEvent, openAIChunks, openAIText, anthropicChunks, anthropicText, readOpenAISse, readAnthropicSse, parseStream,
  applyDiff, counterIds, replayDiffs, modelTurnEvents, type Block, type BlockDiff, type ModelChunk, type DiffRecord,
} from '../lib/index.js'
import { all } from './helpers/arb.js'

const OPENAI_CAPTURE = readFileSync('examples/logs/openai_chat.sse')
const ANTHROPIC_CAPTURE = readFileSync('examples/logs/anthropic_messages.sse')

/** A server answering every POST with `capture`, sent in a few pieces like a live stream. */
async function serve(t: Test, capture: Buffer): Promise<{ url: string; requests: { path: string; body: Record<string, unknown> }[] }> {
  const requests: { path: string; body: Record<string, unknown> }[] = []
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = ''
    req.on('data', (c: Buffer) => (body += c.toString('utf8')))
    req.on('end', () => {
      requests.push({ path: req.url ?? '', body: JSON.parse(body || '{}') as Record<string, unknown> })
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
      const step = Math.ceil(capture.length / 7)
      let at = 0
      const next = (): void => {
        if (at >= capture.length) return void res.end()
        res.write(capture.subarray(at, at + step))
        at += step
        setImmediate(next)
      }
      next()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}`, requests }
}

/** The chunks a capture reader's events carry, as the SDK adapters give them. */
function chunksOfEvents(events: readonly ReplayEvent[]): ModelChunk[] {
  return events.flatMap((e): ModelChunk[] => {
    if (e.type === 'chunk') return [{ kind: e.kind, text: e.text }]
    if (e.type === 'tool') return [{ kind: 'tool_call', key: e.key, ...(e.id === undefined ? {} : { id: e.id }), ...(e.name === undefined ? {} : { name: e.name }), args: e.args }]
    if (e.type === 'tool_end') return [{ kind: 'tool_end', ...(e.key === undefined ? {} : { key: e.key }), cut: e.cut === true }]
    return []
  })
}

async function blocksOf(text: AsyncIterable<string>): Promise<Block[]> {
  let blocks: Block[] = []
  for await (const d of parseStream(text, { idGenerator: counterIds() })) blocks = applyDiff(blocks, d as BlockDiff)
  return blocks
}


t.test('openai SDK: chat.completions stream → text chunks → blocks', async (t) => {
  const { url, requests } = await serve(t, OPENAI_CAPTURE)
  const client = new OpenAI({ apiKey: 'test-key', baseURL: `${url}/v1`, maxRetries: 0 })
  const stream = await client.chat.completions.create({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'fix the import' }], stream: true })
  const blocks = await blocksOf(openAIText(stream))
  t.equal(requests[0]!.path, '/v1/chat/completions')
  t.equal(requests[0]!.body.stream, true)
  t.same(blocks.map((b) => b.type), ['text', 'tool_use'])
  t.match(blocks[0], { type: 'text', content: /^The failing test imports `add`/, partial: false })
  t.same(blocks[1], {
    type: 'tool_use', name: 'replace_in_file', partial: false, call_id: 'call_1', isNativeToolCall: false,
    params: { path: 'src/store.test.ts', diff: "------- SEARCH\nimport { add, list } from './store'\n=======\nimport { add, list } from './store.js'\n+++++++ REPLACE" },
  })

  const again = await client.chat.completions.create({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'x' }], stream: true })
  const fromSdk: ModelChunk[] = await all(openAIChunks(again))
  const fromCapture = chunksOfEvents(await all(readOpenAISse([OPENAI_CAPTURE])))
  t.same(fromSdk, fromCapture, 'the SDK adapter and the capture reader see the same chunks')
})

t.test('anthropic SDK: messages stream → thinking as reasoning, text → blocks', async (t) => {
  const { url, requests } = await serve(t, ANTHROPIC_CAPTURE)
  const client = new Anthropic({ apiKey: 'test-key', baseURL: url, maxRetries: 0 })
  const params = { model: 'claude-sonnet-5-5', max_tokens: 1024, messages: [{ role: 'user' as const, content: 'fix the ids' }], stream: true as const }
  const chunks = await all(anthropicChunks(await client.messages.create(params)))
  t.equal(requests[0]!.path, '/v1/messages')
  const reasoning = chunks.flatMap((c) => (c.kind === 'reasoning' ? [c.text] : [])).join('')
  t.equal(reasoning, 'The user wants the todo ids fixed. Before editing I need the current store code, so the first step is reading it.')
  const fromCapture = chunksOfEvents(await all(readAnthropicSse([ANTHROPIC_CAPTURE])))
  t.same(chunks, fromCapture, 'the SDK adapter and the capture reader see the same chunks')

  const blocks = await blocksOf(anthropicText(await client.messages.create(params)))
  t.same(blocks, [
    { type: 'text', content: "I'll read the store first.", partial: false },
    { type: 'tool_use', name: 'read_file', params: { path: 'src/store.ts' }, partial: false, call_id: 'call_1', isNativeToolCall: false },
  ])

  const helper = client.messages.stream({ model: 'claude-sonnet-5-5', max_tokens: 1024, messages: [{ role: 'user', content: 'x' }] })
  t.same(await blocksOf(anthropicText(helper)), blocks, 'the messages.stream() helper is an iterable of the same events')
})

t.test('adapters pass over what carries nothing', async (t) => {
  const oai = [null, 3, { choices: 'x' }, { choices: [null, { index: 0 }, { index: 0, delta: { tool_calls: [{ index: 0 }] } }, { index: 0, delta: { content: 'a', reasoning_content: 'r' } }] }]
  t.same(await all(openAIChunks((async function* () { yield* oai })())), [{ kind: 'tool_call', key: '0', args: '' }, { kind: 'reasoning', text: 'r' }, { kind: 'text', text: 'a' }])
  const ant = [null, { type: 'content_block_delta', delta: { type: 'input_json_delta', partial_json: '{' } }, { type: 'content_block_start', content_block: { type: 'thinking', thinking: 'pre' } }, { type: 'content_block_start', content_block: { type: 'tool_use' } }]
  t.same(await all(anthropicChunks((async function* () { yield* ant })())), [{ kind: 'reasoning', text: 'pre' }, { kind: 'tool_call', key: '0', args: '' }], 'a piece of a tool block never started is no call')
  const records: DiffRecord[] = await all(parseStream(openAIText((async function* () { yield* oai })())) as AsyncIterable<DiffRecord>)
  t.equal(records.length, 2, 'text only: add, complete')
})

/** The first turn of a native-call fixture: up to the first `[DONE]` or `message_stop`, inclusive. */
function firstTurn(file: string, end: string): Buffer {
  const s = readFileSync(file, 'utf8')
  const at = s.indexOf(end)
  return Buffer.from(s.slice(0, s.indexOf('\n\n', at) + 2))
}

async function finalBlocks(records: AsyncIterable<DiffRecord>): Promise<Block[]> {
  let blocks: Block[] = []
  for await (const r of records) if (r.op !== 'message' && r.op !== 'end' && r.op !== 'diagnostic') blocks = applyDiff(blocks, r)
  return blocks
}

t.test('SDK adapters with native tool calls: the same blocks as the capture reader', async (t) => {
  const oaiCapture = firstTurn('test/fixtures/native/openai_tools.sse', '[DONE]')
  const oai = await serve(t, oaiCapture)
  const openai = new OpenAI({ apiKey: 'test-key', baseURL: `${oai.url}/v1`, maxRetries: 0 })
  const stream = await openai.chat.completions.create({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'notes' }], tools: [{ type: 'function', function: { name: 'read_file', parameters: {} } }], stream: true })
  const fromSdk = await finalBlocks(replayDiffs(modelTurnEvents(openAIChunks(stream))))
  const fromCapture = await finalBlocks(replayDiffs(readOpenAISse([oaiCapture])))
  t.same(fromSdk, fromCapture)
  t.same(fromSdk.map((b) => b.type === 'tool_use' ? [b.name, b.call_id, b.isNativeToolCall, b.partial] : b.type), ['text', ['read_file', 'call_R1', true, false], ['write_to_file', 'call_W2', true, false], ['list_files', 'call_L3', true, false]])

  const antCapture = firstTurn('test/fixtures/native/anthropic_tools.sse', 'message_stop')
  const ant = await serve(t, antCapture)
  const anthropic = new Anthropic({ apiKey: 'test-key', baseURL: ant.url, maxRetries: 0 })
  const events = await anthropic.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 1024, messages: [{ role: 'user', content: 'x' }], stream: true })
  const fromAnt = await finalBlocks(replayDiffs(modelTurnEvents(anthropicChunks(events))))
  t.same(fromAnt, await finalBlocks(replayDiffs(readAnthropicSse([antCapture]))))
  t.same(fromAnt.map((b) => b.type === 'tool_use' ? b.call_id : b.type), ['reasoning', 'text', 'toolu_01A', 'toolu_01B', 'toolu_01C'])
  t.same((fromAnt[2] as { params: unknown }).params, { path: 'C:\\work\\src\\main.rs', note: '\u{1F680}' })
})
