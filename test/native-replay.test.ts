// Native tool calls through the log readers and the replay differ (SPEC 8a), against fixtures in
// the providers' wire formats (test/fixtures/native, written by make.mjs there). The expected
// params come from an oracle independent of the readers: the fixture's argument pieces joined,
// JSON.parse'd whole, and converted as the original does.
import t, { type Test } from 'tap'
import fc from 'fast-check'
import { readFileSync } from 'node:fs'
import {
  readLog, replayDiffs, ReplayDiffer, applyDiff, counterIds, BlockAccumulator, openAIChunks, anthropicChunks,
  type Block, type DiffRecord, type ReplayEvent, type ToolUseBlock, type ModelChunk,
} from '../lib/index.js'
import { all, chunksOf, cutsUpTo } from './helpers/arb.js'

const DIR = 'test/fixtures/native/'
const OPENAI = readFileSync(DIR + 'openai_tools.sse')
const ANTHROPIC = readFileSync(DIR + 'anthropic_tools.sse')
const HISTORY = readFileSync(DIR + 'cline_history_tools.json')

/** The original's params: Object.entries of the parsed object, strings as they are, the rest stringified. */
function original(input: unknown): Record<string, string> {
  const params: Record<string, string> = {}
  for (const [k, v] of Object.entries(input as object)) params[k] = typeof v === 'string' ? v : JSON.stringify(v)
  return params
}

interface OracleCall { id: string; name: string; args: string }

/** Data payloads of an SSE file, parsed (`[DONE]` kept as the string). */
function payloads(buf: Buffer): unknown[] {
  return buf.toString('utf8').split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).map((d) => (d === '[DONE]' ? d : JSON.parse(d)))
}

/** Per turn, the native calls in first-delta order, with their whole argument text. */
function oracleOpenAI(): OracleCall[][] {
  const turns: OracleCall[][] = []
  let calls = new Map<number, OracleCall>()
  for (const p of payloads(OPENAI)) {
    if (p === '[DONE]') {
      turns.push([...calls.values()])
      calls = new Map()
      continue
    }
    for (const tc of (p as { choices: { delta: { tool_calls?: { index: number; id?: string; function: { name?: string; arguments?: string } }[] } }[] }).choices[0]!.delta.tool_calls ?? []) {
      const c = calls.get(tc.index) ?? { id: tc.id!, name: tc.function.name!, args: '' }
      c.args += tc.function.arguments ?? ''
      calls.set(tc.index, c)
    }
  }
  return turns
}

function oracleAnthropic(): OracleCall[][] {
  const turns: OracleCall[][] = []
  let calls = new Map<number, OracleCall>()
  for (const p of payloads(ANTHROPIC) as { type: string; index: number; content_block?: { type: string; id: string; name: string }; delta?: { type: string; partial_json: string } }[]) {
    if (p.type === 'message_stop') {
      turns.push([...calls.values()])
      calls = new Map()
    } else if (p.type === 'content_block_start' && p.content_block!.type === 'tool_use') {
      calls.set(p.index, { id: p.content_block!.id, name: p.content_block!.name, args: '' })
    } else if (p.type === 'content_block_delta' && p.delta!.type === 'input_json_delta') {
      calls.get(p.index)!.args += p.delta!.partial_json
    }
  }
  return turns
}

function oracleHistory(): OracleCall[][] {
  const messages = JSON.parse(HISTORY.toString('utf8')) as { role: string; content: { type: string; id: string; name: string; input: unknown }[] }[]
  return messages.filter((m) => m.role === 'assistant').map((m) => m.content.filter((p) => p.type === 'tool_use').map((p) => ({ id: p.id, name: p.name, args: JSON.stringify(p.input) })))
}

/** The blocks a call should end as: complete with the original's params, or truncated with `cut` params. */
function expectedBlock(c: OracleCall, cut?: Record<string, string>): ToolUseBlock {
  if (cut !== undefined) return { type: 'tool_use', name: c.name, params: cut, partial: false, call_id: c.id, isNativeToolCall: true, truncated: true }
  return { type: 'tool_use', name: c.name, params: original(c.args === '' ? {} : JSON.parse(c.args)), partial: false, call_id: c.id, isNativeToolCall: true }
}

interface Turn { id: string; blocks: Block[]; records: DiffRecord[]; snapshots: Block[][] }

/** Replays a log; per turn, the final blocks, its records, and the snapshot after every diff. */
async function replay(source: Iterable<Uint8Array | string> | AsyncIterable<Uint8Array | string>, options = {}): Promise<Turn[]> {
  const turns: Turn[] = []
  let cur: Turn | undefined
  for await (const r of replayDiffs(readLog(source, { file: 'fixture' }), options)) {
    if (r.op === 'message') turns.push((cur = { id: r.id, blocks: [], records: [], snapshots: [] }))
    else if (r.op === 'end' || r.op === 'diagnostic') cur!.records.push(r)
    else {
      cur!.records.push(r)
      cur!.blocks = applyDiff(cur!.blocks, r)
      cur!.snapshots.push(cur!.blocks)
    }
  }
  return turns
}

/** Every string param of every native block in every snapshot is a prefix of its final value. */
function streamsAsPrefixes(t: Test, turn: Turn): void {
  let checked = 0
  for (const snap of turn.snapshots) {
    snap.forEach((b, i) => {
      if (b.type !== 'tool_use' || !b.isNativeToolCall) return
      const fin = turn.blocks[i] as ToolUseBlock
      for (const [k, v] of Object.entries(b.params)) {
        checked++
        if (!fin.params[k]!.startsWith(v)) t.fail(`${turn.id} block ${i} param ${k}: ${JSON.stringify(v)} is not a prefix of ${JSON.stringify(fin.params[k])}`)
      }
    })
  }
  t.ok(checked > 0, `${turn.id}: ${checked} intermediate param values, each a prefix of the final one`)
}

t.test('OpenAI SSE: text, then parallel calls interleaved by index, in first-delta order; a call cut by finish_reason length', async (t) => {
  const turns = await replay([OPENAI])
  const oracle = oracleOpenAI()
  t.equal(turns.length, 2)
  t.same(turns[0]!.blocks, [
    { type: 'text', content: "I'll read the config and write the notes.", partial: false },
    ...oracle[0]!.map((c) => expectedBlock(c)),
  ])
  t.equal((turns[0]!.blocks[2] as ToolUseBlock).params.content, '# Notes\n\nTabs\tand "quotes" and a back\\slash é\u{1F680} done\n', 'escapes and a surrogate pair split across deltas')
  t.same((turns[0]!.blocks[3] as ToolUseBlock).params, { path: '.', recursive: 'true', depth: '2', filter: '{"ext":[".ts",".md"]}' })
  t.same(turns[1]!.blocks, [
    { type: 'text', content: 'Writing the big file now.', partial: false },
    expectedBlock(oracle[1]![0]!, { path: 'big.txt', content: 'first line\nsecond li' }),
  ])
  for (const turn of turns) streamsAsPrefixes(t, turn)
  // the interleaving: call 0's first pieces hold no whole key yet; then call 1 sets path and
  // content, call 0 its path, and call 1's content grows by three appends
  const changed = turns[0]!.records.flatMap((r) => (r.op === 'append' || r.op === 'set') && r.path.startsWith('params.') ? [`${r.op} ${r.index} ${r.path}`] : [])
  t.same(changed.slice(0, 6), ['set 2 params.path', 'set 2 params.content', 'set 1 params.path', 'append 2 params.content', 'append 2 params.content', 'append 2 params.content'], 'set/append diffs follow the deltas of calls 0 and 1 as they interleave')
})

t.test('Anthropic SSE: thinking, text, tool_use blocks with input_json_delta; an empty input; a call cut by max_tokens', async (t) => {
  const turns = await replay([ANTHROPIC], { diagnosticRecords: true })
  const oracle = oracleAnthropic()
  t.same(turns[0]!.blocks, [
    { type: 'reasoning', reasoning: 'Read it, then run the tests.', partial: false },
    { type: 'text', content: 'Let me look at the file first.', partial: false },
    ...oracle[0]!.map((c) => expectedBlock(c)),
  ])
  t.same((turns[0]!.blocks[2] as ToolUseBlock).params, { path: 'C:\\work\\src\\main.rs', note: '\u{1F680}' })
  t.same((turns[0]!.blocks[4] as ToolUseBlock).params, {}, 'a tool_use without input text is a call without arguments')
  t.same(turns[1]!.blocks, [expectedBlock(oracle[1]![0]!, { path: 'src/lib.rs', content: 'pub fn add(a: i32, b: i32) -> i32 {\n    a +' })])
  const diags = turns.flatMap((x) => x.records.filter((r) => r.op === 'diagnostic'))
  t.match(diags, [{ op: 'diagnostic', code: 'invalid-tool-arguments', message: /"write_to_file" \(toolu_02A\): the arguments ended before their JSON object was complete/, offset: oracle[1]![0]!.args.length }])
  for (const turn of turns) streamsAsPrefixes(t, turn)
  // each complete call is completed at its content_block_stop, before the next call starts
  const ops = turns[0]!.records.filter((r) => r.op === 'add' || r.op === 'complete').map((r) => `${r.op}${'index' in r ? r.index : ''}`)
  t.same(ops, ['add0', 'complete0', 'add1', 'complete1', 'add2', 'complete2', 'add3', 'complete3', 'add4', 'complete4'])
})

t.test('Cline history: tool_use parts with a complete input; an input that is not an object is never a valid call', async (t) => {
  const turns = await replay([HISTORY], { diagnosticRecords: true })
  const oracle = oracleHistory()
  t.same(turns[0]!.blocks, [{ type: 'text', content: 'I will update the README.', partial: false }, expectedBlock(oracle[0]![0]!)])
  t.same(turns[1]!.blocks, [
    { type: 'text', content: 'Now the listing.', partial: false },
    expectedBlock(oracle[1]![0]!),
    expectedBlock(oracle[1]![1]!, {}),
  ])
  t.match(turns[1]!.records.filter((r) => r.op === 'diagnostic'), [{ code: 'invalid-tool-arguments', message: /"attempt_completion" \(toolu_H3\): the arguments are not a JSON object/, offset: 0 }])
  streamsAsPrefixes(t, turns[0]!)
})

t.test('any cut of the log bytes gives the same diff stream; the provider ids stay whatever the id generator', async (t) => {
  for (const buf of [OPENAI, ANTHROPIC, HISTORY]) {
    const whole = JSON.stringify((await replay([buf])).map((x) => x.records))
    fc.assert(fc.asyncProperty(cutsUpTo(buf.length), async (cuts) => {
      const pieces: Uint8Array[] = []
      const points = [...new Set(cuts)].sort((a, b) => a - b)
      let last = 0
      for (const p of points) { pieces.push(buf.subarray(last, p)); last = p }
      pieces.push(buf.subarray(last))
      const got = JSON.stringify((await replay(pieces)).map((x) => x.records))
      if (got !== whole) throw new Error('diff stream depends on the byte cuts')
    }), { numRuns: 40 })
    const random = await replay([buf], { idGenerator: () => 'RANDOM' })
    for (const turn of random) {
      for (const b of turn.blocks) if (b.type === 'tool_use') t.not(b.call_id, 'RANDOM', `${b.name}: the provider's id (${b.call_id})`)
    }
  }
})

t.test('the diffs apply to the BlockAccumulator and a native block keeps its key order', async (t) => {
  const turns = await replay([OPENAI])
  const acc = new BlockAccumulator()
  for (const r of turns[0]!.records) if (r.op !== 'message' && r.op !== 'end' && r.op !== 'diagnostic') acc.apply(r)
  t.same(acc.blocks, turns[0]!.blocks)
  t.equal(acc.json(), JSON.stringify(turns[0]!.blocks))
  t.same(Object.keys(turns[1]!.blocks[1]!), ['type', 'name', 'params', 'partial', 'call_id', 'isNativeToolCall', 'truncated'])
})

/** Runs events through a differ and returns the final blocks of the one turn. */
function differBlocks(events: ReplayEvent[], options = {}): { blocks: Block[]; records: DiffRecord[] } {
  const d = new ReplayDiffer({ idGenerator: counterIds(), ...options })
  const records = [...events.flatMap((e) => d.push(e)), ...d.end()]
  let blocks: Block[] = []
  for (const r of records) if (r.op !== 'message' && r.op !== 'end' && r.op !== 'diagnostic') blocks = applyDiff(blocks, r)
  return { blocks, records }
}

t.test('order: text after a call is a new segment after it; blocks never move', async (t) => {
  const { blocks } = differBlocks([
    { type: 'message', id: 'm' },
    { type: 'chunk', kind: 'text', text: 'Before <read_file><path>a</path></read_file> mid', t: 0 },
    { type: 'tool', key: 'k', id: 'call_x', name: 'list_files', args: '{"path":"."}', t: 0 },
    { type: 'chunk', kind: 'text', text: 'After.', t: 0 },
    { type: 'chunk', kind: 'reasoning', text: 'hmm', t: 0 },
    { type: 'tool', key: 'k', args: ' ', t: 0 },
    { type: 'end', id: 'm' },
  ])
  t.same(blocks.map((b) => b.type === 'tool_use' ? `${b.name}:${b.isNativeToolCall}` : b.type), ['text', 'read_file:false', 'text', 'list_files:true', 'text', 'reasoning'])
  t.same(blocks[1], { type: 'tool_use', name: 'read_file', params: { path: 'a' }, partial: false, call_id: 'call_1', isNativeToolCall: false }, 'tag calls keep the generated ids')
  t.same(blocks[3], { type: 'tool_use', name: 'list_files', params: { path: '.' }, partial: false, call_id: 'call_x', isNativeToolCall: true })
})

t.test('a call without an id gets one from the id generator; a late name replaces the block once', async (t) => {
  const { blocks } = differBlocks([
    { type: 'message', id: 'm' },
    { type: 'tool', key: '0', args: '{"a":', t: 0 },
    { type: 'tool', key: '0', name: 'use_mcp_tool', args: '1}', t: 0 },
    { type: 'tool_end', key: '0' },
    { type: 'end', id: 'm' },
  ])
  t.same(blocks, [{ type: 'tool_use', name: 'use_mcp_tool', params: { a: '1' }, partial: false, call_id: 'call_1', isNativeToolCall: true }])
})

t.test('completeOnEnd: false leaves a cut call partial, as a tag call', async (t) => {
  const events: ReplayEvent[] = [{ type: 'message', id: 'm' }, { type: 'tool', key: '0', id: 'c', name: 'read_file', args: '{"path":"x', t: 0 }, { type: 'end', id: 'm' }]
  t.same(differBlocks(events, { completeOnEnd: false }).blocks, [{ type: 'tool_use', name: 'read_file', params: { path: 'x' }, partial: true, call_id: 'c', isNativeToolCall: true }])
  t.same(differBlocks(events).blocks, [{ type: 'tool_use', name: 'read_file', params: { path: 'x' }, partial: false, call_id: 'c', isNativeToolCall: true, truncated: true }])
  // a cut (finish_reason length) with no argument text is incomplete; a normal end is no arguments
  const empty = (cut: boolean): Block[] => differBlocks([{ type: 'message', id: 'm' }, { type: 'tool', key: '0', id: 'c', name: 'n', args: '', t: 0 }, { type: 'tool_end', cut }, { type: 'end', id: 'm' }]).blocks
  t.equal((empty(true)[0] as ToolUseBlock).truncated, true)
  t.equal((empty(false)[0] as ToolUseBlock).truncated, undefined)
})

t.test('bad input: a tool event outside a turn, arguments over maxBytes, text after a call ended, a bad tool_use part', async (t) => {
  const d = new ReplayDiffer()
  t.throws(() => d.push({ type: 'tool', key: '0', args: '{', t: 0 }), { code: 'ERR_BAD_LOG', message: /a tool call outside any message/ })
  t.throws(() => d.push({ type: 'tool_end' }), { code: 'ERR_BAD_LOG' })
  const small = new ReplayDiffer({ maxBytes: 10 })
  small.push({ type: 'message', id: 'm' })
  small.push({ type: 'tool', key: '0', id: 'c', name: 'n', args: '{"a":"b', t: 0 })
  t.throws(() => small.push({ type: 'tool', key: '0', args: 'cdef"}', t: 0 }), { code: 'ERR_MESSAGE_TOO_LARGE', message: '<input>: m: native tool call arguments exceed maxBytes (10)' })
  const { records } = differBlocks([
    { type: 'message', id: 'm' },
    { type: 'tool', key: '0', id: 'c', name: 'n', args: '{}', t: 0 },
    { type: 'tool_end', key: '0' },
    { type: 'tool', key: '0', args: '{"late":1}', t: 0 },
    { type: 'end', id: 'm' },
  ], { diagnosticRecords: true })
  t.match(records.filter((r) => r.op === 'diagnostic'), [{ code: 'ignored-content', message: /argument text after the call ended was dropped/, offset: 2 }])
  const bad = JSON.stringify([{ role: 'assistant', content: [{ type: 'tool_use', name: 'x', input: {} }, { type: 'text', text: 'ok' }] }])
  await t.rejects(all(readLog([bad], { file: 'h.json' })), { code: 'ERR_BAD_LOG', message: /h\.json: messages\[0\]\.content\[0\]: a tool_use part needs a string "id"/ })
  const warnings: string[] = []
  const events = await all(readLog([bad], { file: 'h.json', onError: 'skip', onWarning: (w) => warnings.push(w.message) }))
  t.same(events.filter((e) => e.type === 'tool'), [])
  t.equal(warnings.length, 1)
})

t.test('end to end: random argument objects cut into random input_json_delta / tool_calls pieces', async (t) => {
  const value = fc.dictionary(fc.oneof(fc.string({ maxLength: 6 }), fc.constant('__proto__')), fc.oneof(fc.string({ unit: 'binary' }), fc.jsonValue({ maxDepth: 2 })), { maxKeys: 5 })
  await fc.assert(fc.asyncProperty(value, cutsUpTo(300), fc.boolean(), async (obj, cuts, anthropic) => {
    const json = JSON.stringify(obj)
    const pieces = chunksOf(json, cuts)
    let sse: string
    if (anthropic) {
      const ev = (o: object): string => `data: ${JSON.stringify(o)}\n\n`
      sse = ev({ type: 'message_start', message: { id: 'm' } }) +
        ev({ type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_P', name: 'tool', input: {} } }) +
        pieces.map((p) => ev({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: p } })).join('') +
        ev({ type: 'content_block_stop', index: 0 }) + ev({ type: 'message_stop' })
    } else {
      const ev = (delta: object, finish: string | null = null): string => `data: ${JSON.stringify({ id: 'c', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
      sse = ev({ tool_calls: [{ index: 0, id: 'call_P', function: { name: 'tool', arguments: '' } }] }) +
        pieces.map((p) => ev({ tool_calls: [{ index: 0, function: { arguments: p } }] })).join('') + ev({}, 'tool_calls') + 'data: [DONE]\n\n'
    }
    const [turn] = await replay([sse])
    const block = turn!.blocks[0] as ToolUseBlock
    const expected = original(JSON.parse(json))
    delete expected['__proto__']
    if (JSON.stringify(block.params) !== JSON.stringify(expected) || block.partial || block.truncated) throw new Error(`${JSON.stringify(block)} != ${JSON.stringify(expected)}`)
    for (const snap of turn!.snapshots) {
      const b = snap[0] as ToolUseBlock
      for (const [k, v] of Object.entries(b.params)) if (!expected[k]!.startsWith(v)) throw new Error(`${k}: ${JSON.stringify(v)} is not a prefix`)
    }
  }), { numRuns: 200 })
  t.pass('held')
})

t.test('providers that leave out the index key calls by id, and later pieces continue the last call; a start may hold the whole input', async (t) => {
  const chunks = [
    { choices: [{ index: 0, delta: { tool_calls: [{ id: 'call_a', function: { name: 'read_file', arguments: '{"path":' } }] } }] },
    { choices: [{ index: 0, delta: { tool_calls: [{ function: { arguments: '"a"}' } }] } }] },
    { choices: [{ index: 0, delta: { tool_calls: [{ id: 'call_b', function: { name: 'list_files', arguments: '{}' } }, 'junk', { index: -1 }] } }] },
    { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
  ]
  const oai = await all(openAIChunks((async function* () { yield* chunks })()))
  t.same(oai, [
    { kind: 'tool_call', key: 'id:call_a', id: 'call_a', name: 'read_file', args: '{"path":' },
    { kind: 'tool_call', key: 'id:call_a', args: '"a"}' },
    { kind: 'tool_call', key: 'id:call_b', id: 'call_b', name: 'list_files', args: '{}' },
    { kind: 'tool_call', key: 'id:call_b', args: '' },
    { kind: 'tool_end', cut: false },
  ])
  const { blocks } = differBlocks([{ type: 'message', id: 'm' }, ...oai.map((c) => chunkToEvent(c)), { type: 'end', id: 'm' }])
  t.same(blocks.map((b) => b.type === 'tool_use' && [b.call_id, b.params]), [['call_a', { path: 'a' }], ['call_b', {}]])
  const none = await all(openAIChunks((async function* () { yield { choices: [{ index: 0, delta: { tool_calls: [{ function: { arguments: '{' } }] } }] } })()))
  t.same(none, [], 'a piece with no index, no id and no call before it belongs to no call')
  const ant = await all(anthropicChunks((async function* () {
    yield { type: 'message_start', message: {} }
    yield { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_w', name: 'read_file', input: { path: 'whole.ts' } } }
    yield { type: 'content_block_stop', index: 0 }
    yield { type: 'content_block_stop', index: 1 }
  })()))
  t.same(ant, [{ kind: 'tool_call', key: '0', id: 'toolu_w', name: 'read_file', args: '{"path":"whole.ts"}' }, { kind: 'tool_end', key: '0', cut: false }], 'a stop of a block that is no call ends nothing')
})

function chunkToEvent(c: ModelChunk): ReplayEvent {
  if (c.kind === 'tool_call') return { type: 'tool', key: c.key, args: c.args, t: 0, ...(c.id === undefined ? {} : { id: c.id }), ...(c.name === undefined ? {} : { name: c.name }) }
  if (c.kind === 'tool_end') return { type: 'tool_end', cut: c.cut, ...(c.key === undefined ? {} : { key: c.key }) }
  return { type: 'chunk', kind: c.kind, text: c.text, t: 0 }
}

t.test('a history input with a __proto__ key: dropped with a diagnostic, nothing written through', async (t) => {
  const h = '[{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"read_file","input":{"__proto__":{"polluted":1},"path":"x","constructor":"c"}}]}]'
  const [turn] = await replay([h], { diagnosticRecords: true })
  t.same(turn!.blocks, [{ type: 'tool_use', name: 'read_file', params: { path: 'x', constructor: 'c' }, partial: false, call_id: 't1', isNativeToolCall: true }])
  t.match(turn!.records.filter((r) => r.op === 'diagnostic'), [{ code: 'ignored-content', message: /the argument "__proto__" was dropped/ }])
  t.equal(({} as Record<string, unknown>).polluted, undefined)
})

t.test('the deprecated function_call delta is a native call named by the id generator', async (t) => {
  const sse = [
    { choices: [{ index: 0, delta: { role: 'assistant', content: null, function_call: { name: 'read_file', arguments: '' } } }] },
    { choices: [{ index: 0, delta: { function_call: { arguments: '{"path":"f.ts"}' } } }] },
    { choices: [{ index: 0, delta: {}, finish_reason: 'function_call' }] },
  ].map((c) => `data: ${JSON.stringify({ id: 'x', ...c })}\n\n`).join('') + 'data: [DONE]\n\n'
  const [turn] = await replay([sse])
  t.same(turn!.blocks, [{ type: 'tool_use', name: 'read_file', params: { path: 'f.ts' }, partial: false, call_id: 'call_1', isNativeToolCall: true }])
})

t.test('a history tool_use input read one character at a time: the same events, pairs kept whole, lone surrogates escaped', async (t) => {
  const h = JSON.stringify([{ role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'write_to_file', input: { content: 'rocket \u{1F680}\u{1F680} lone \ud800 end', n: 1.5 } }] }])
  const whole = await all(readLog([h]))
  const one = await all(readLog([...h]))
  t.same(one, whole)
  const args = whole.filter((e) => e.type === 'tool').map((e) => (e as { args: string }).args).join('')
  t.equal(args, JSON.stringify({ content: 'rocket \u{1F680}\u{1F680} lone \ud800 end', n: 1.5 }))
  const [turn] = await replay([...h])
  t.same((turn!.blocks[0] as ToolUseBlock).params, { content: 'rocket \u{1F680}\u{1F680} lone \ud800 end', n: '1.5' })
})
