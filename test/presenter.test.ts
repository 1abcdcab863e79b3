// Presenter: SPEC 7.1–7.7 and 7.10 (text, cursor, tool gates, checkpoint, errors, ready, coalescing).
import t from 'tap'
import fc from 'fast-check'
import { readFileSync } from 'node:fs'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { once } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import {
  createBlockParser, createPresenter, cleanDisplayText, parseAssistantMessage, diffBlocks, InterruptError, INTERRUPT_NOTES,
  type Presenter, type PresenterOptions, type SayMessage, type ToolUseBlock, type ToolResult, type InterruptInfo,
  type DiffRecord, type Block,
} from '../lib/index.js'
import { counter } from './helpers/arb.js'


interface Run {
  presenter: Presenter
  says: SayMessage[]
  executed: string[]
  results: ToolResult[]
  interrupts: InterruptInfo[]
  ready: ToolResult[][]
  error: unknown
}

/** Runs a whole message through BlockParser → Presenter, chunk by chunk. */
async function present(chunks: string[], opts: Partial<PresenterOptions> = {}): Promise<Run> {
  const says: SayMessage[] = []
  const executed: string[] = []
  const presenter = createPresenter({
    say: (m) => { says.push(m) },
    executeTool: (b) => {
      executed.push(b.name)
      return `done ${b.name}`
    },
    ...opts,
  })
  const interrupts: InterruptInfo[] = []
  const ready: ToolResult[][] = []
  presenter.on('interrupt', (i: InterruptInfo) => interrupts.push(i))
  presenter.on('ready', (r: ToolResult[]) => ready.push(r))
  let error: unknown
  try {
    await pipeline(Readable.from(chunks), createBlockParser({ idGenerator: counter('id') }), presenter)
  } catch (err) {
    error = err
  }
  return { presenter, says, executed, results: presenter.results, interrupts, ready, error }
}

/** Writes diff records straight into a presenter. */
async function feed(presenter: Presenter, records: DiffRecord[]): Promise<void> {
  for (const r of records) presenter.write(r)
  presenter.end()
  await once(presenter, 'finish')
}

const read = (path: string) => ({ type: 'tool_use', name: 'read_file', params: { path }, partial: false, call_id: `r-${path}`, isNativeToolCall: false }) as const
const write = (path: string) => ({ type: 'tool_use', name: 'write_to_file', params: { path, content: 'x' }, partial: false, call_id: `w-${path}`, isNativeToolCall: false }) as const
const text = (content: string, partial = false) => ({ type: 'text', content, partial }) as const

t.test('7.1 text is cleaned for display exactly as the conformance file says', async (t) => {
  const cases = readFileSync(new URL('./fixtures/conformance/present-text.cline.jsonl', import.meta.url), 'utf8').split('\n').filter(Boolean)
    .map((l) => JSON.parse(l) as { content: string; partial: boolean; expected: string })
  t.equal(cases.length, 40)
  let failed = 0
  for (const c of cases) {
    const says: SayMessage[] = []
    const p = createPresenter({ say: (m) => { says.push(m) }, executeTool: () => '' })
    p.write({ op: 'add', index: 0, block: text(c.content, c.partial) })
    await new Promise((r) => setImmediate(r))
    const first = says[0]
    // a block that cleans to nothing is not shown at all
    const got = first === undefined ? '' : first.content
    if (got !== c.expected || (first !== undefined && first.partial !== c.partial)) {
      failed++
      t.fail(JSON.stringify(c), { got: first })
    }
    p.destroy()
  }
  t.equal(failed, 0, 'every case shown as expected, with its partial flag')
})

t.test('7.1 a growing block is shown again each time, cleaned like the whole text so far', async (t) => {
  const msg = 'I will <thinking>\nplan this.\n</thinking>\nread it now, then `edit` <3 things.\n```xml\n<read_file><path>a.ts</path></read_file>'
  const chunks = msg.match(/[\s\S]{1,3}/g)!
  const run = await present(chunks, { parallelToolCalls: true })
  const texts = run.says.filter((s) => s.type === 'text')
  const finals = texts.filter((s) => !s.partial)
  t.equal(finals.length, 1, 'one final update')
  t.equal(finals[0]!.content, cleanDisplayText(parseAssistantMessage(msg)[0]!.type === 'text' ? (parseAssistantMessage(msg)[0] as { content: string }).content : '', false))
  t.equal(finals[0]!.content, 'I will plan this.\nread it now, then `edit` <3 things.\n', 'tags stripped, fence opener cut')
  t.ok(texts.length > 10, 'partial updates while it streamed')
  // every partial update equals the pure cleaning of some prefix's text block, and they never repeat
  const prefixDisplays = new Set<string>()
  for (let i = 1; i <= chunks.length; i++) {
    const first = parseAssistantMessage(chunks.slice(0, i).join(''))[0]
    if (first?.type === 'text') prefixDisplays.add(cleanDisplayText(first.content, true))
  }
  t.same(texts.filter((s) => s.partial && !prefixDisplays.has(s.content)), [], 'each partial update is the display of a prefix')
  for (let i = 1; i < texts.length; i++) t.not(texts[i]!.content + texts[i]!.partial, texts[i - 1]!.content + texts[i - 1]!.partial)
  t.notOk(texts.some((s) => /<\/?thinking>|<read_fi|<\/?$/.test(s.content)), 'no tag or partial tag ever shown')
})

t.test('7.1 incremental cleaning equals cleanDisplayText of the content after every diff (property)', async (t) => {
  const piece = fc.oneof(
    fc.constantFrom('<thinking>', '</thinking>', '<think>', '</think>', '<function_calls>', '</function_calls>', '<', '</', '<read_fi', '<b c', '<_x', '1 < 2', '>', '```', '```xml'),
    fc.constantFrom(' ', '\n', '  ', 'a', 'plan', 'x.y', '. ', 'é', '😀', '-', '3'),
  )
  await fc.assert(fc.asyncProperty(fc.array(piece, { minLength: 1, maxLength: 14, size: 'max' }), fc.array(fc.nat(60), { maxLength: 8, size: 'max' }), async (pieces, cuts) => {
    const content = pieces.join('')
    const points = [...new Set(cuts.map((c) => c % (content.length + 1)))].sort((a, b) => a - b)
    const says: SayMessage[] = []
    const p = createPresenter({ say: (m) => { says.push(m) }, executeTool: () => '' })
    const expected: string[] = []
    let prev = 0
    const first = points[0] ?? content.length
    p.write({ op: 'add', index: 0, block: text(content.slice(0, first), true) })
    expected.push(cleanDisplayText(content.slice(0, first), true))
    prev = first
    for (const at of [...points.slice(1), content.length]) {
      if (at <= prev) continue
      p.write({ op: 'append', index: 0, path: 'content', text: content.slice(prev, at) })
      expected.push(cleanDisplayText(content.slice(0, at), true))
      prev = at
    }
    p.write({ op: 'complete', index: 0 })
    expected.push(cleanDisplayText(content, false))
    p.end()
    await once(p, 'finish')
    // what was shown is the expected sequence without repeats and without leading empties
    const want: string[] = []
    for (let i = 0; i < expected.length; i++) {
      const last = i === expected.length - 1
      if (want.length === 0 && expected[i] === '') continue
      if (!last && want.length > 0 && want[want.length - 1] === expected[i]) continue
      want.push(expected[i]!)
    }
    const got = says.map((s) => s.content)
    if (JSON.stringify(got) !== JSON.stringify(want)) throw new Error(`${JSON.stringify(pieces)} @ ${JSON.stringify(points)}: ${JSON.stringify(got)} != ${JSON.stringify(want)}`)
  }), { numRuns: 400 })
  t.pass('held')
})

t.test('cleanText: false shows the raw text; reasoning blocks are shown as reasoning', async (t) => {
  const says: SayMessage[] = []
  const p = createPresenter({ say: (m) => { says.push(m) }, executeTool: () => '', cleanText: false })
  await feed(p, [
    { op: 'add', index: 0, block: { type: 'reasoning', reasoning: 'think', partial: true } },
    { op: 'append', index: 0, path: 'reasoning', text: 'ing' },
    { op: 'complete', index: 0 },
    { op: 'add', index: 1, block: text('<thinking>x</thinking> ```xml') },
  ])
  t.same(says, [
    { type: 'reasoning', content: 'think', partial: true },
    { type: 'reasoning', content: 'thinking', partial: true },
    { type: 'reasoning', content: 'thinking', partial: false },
    { type: 'text', content: '<thinking>x</thinking> ```xml', partial: false },
  ])
})

t.test('7.2 the cursor advances only past complete blocks; partial tools go to onToolPartial, never to executeTool', async (t) => {
  const partials: ToolUseBlock[] = []
  const views: ToolUseBlock[] = []
  const executed: ToolUseBlock[] = []
  const p = createPresenter({
    // the block is a view, valid during the call: a hook that keeps it copies it (issue 16)
    onToolPartial: (b) => { views.push(b); partials.push({ ...b, params: { ...b.params } }) },
    executeTool: (b) => { executed.push(b); return 'ok' },
  })
  const tool = { type: 'tool_use', name: 'write_to_file', params: { path: 'a' }, partial: true, call_id: 'w1', isNativeToolCall: false } as const
  p.write({ op: 'add', index: 0, block: text('Writing.') })
  p.write({ op: 'add', index: 1, block: tool })
  p.write({ op: 'set', index: 1, path: 'params.content', value: 'hel' })
  p.write({ op: 'append', index: 1, path: 'params.content', text: 'lo' })
  await new Promise((r) => setImmediate(r))
  t.equal(p.cursor, 1, 'past the complete text, stopped at the partial tool')
  t.equal(executed.length, 0, 'a partial tool is never executed')
  t.same(partials.map((b) => b.params), [{ path: 'a' }, { path: 'a', content: 'hel' }, { path: 'a', content: 'hello' }])
  t.equal(new Set(views).size, 3, 'a new block object per update')
  views[2]!.params.path = 'mutated' // a hook that writes to its view reaches nothing else
  views[2]!.params.content = 'mutated'
  p.write({ op: 'complete', index: 1 })
  p.end()
  await once(p, 'finish')
  t.equal(executed.length, 1)
  t.same(executed[0]!.params, { path: 'a', content: 'hello' }, 'the executed block is the complete one; the views were the display\'s own')
  t.equal(p.cursor, 2)
})

t.test('7.2 tools run strictly one at a time, in order', async (t) => {
  let active = 0
  let maxActive = 0
  const order: string[] = []
  const msg = ['<read_file><path>1</path></read_file>', 'x<read_file><path>2</path></read_file>', '<read_file><path>3</path></read_file>']
  const run = await present(msg, {
    parallelToolCalls: true,
    executeTool: async (b) => {
      active++
      maxActive = Math.max(maxActive, active)
      order.push(b.params.path!)
      await sleep(b.params.path === '1' ? 30 : 5)
      active--
      return `read ${b.params.path}`
    },
  })
  t.equal(run.error, undefined)
  t.equal(maxActive, 1, 'never two at once')
  t.same(order, ['1', '2', '3'])
  t.same(run.results.map((r) => [r.call_id, r.content, r.status]), [['id1', 'read 1', 'ok'], ['id2', 'read 2', 'ok'], ['id3', 'read 3', 'ok']])
})

t.test('7.3 one tool per message: later tools skipped, later text hidden, interrupt', async (t) => {
  const msg = 'First. <read_file><path>a</path></read_file> Then more. <execute_command><command>rm -rf /</command></execute_command> <read_file><path>b</path></read_file> Bye.'
  for (const chunks of [[msg], msg.match(/[\s\S]{1,5}/g)!]) {
    const run = await present(chunks)
    t.same(run.executed, ['read_file'], 'only the first tool ran')
    t.notOk(run.says.some((s) => /more|Bye/.test(s.content)), 'later text is not shown')
    t.ok(run.says.some((s) => s.content === 'First.' && !s.partial))
    t.equal(run.results[0]!.status, 'ok')
    t.same(run.interrupts, [{ reason: 'tool-used', note: INTERRUPT_NOTES['tool-used'] }])
    t.same(run.ready, [run.results], 'ready once, with the results')
  }
  // every tool already read when the interrupt happens gets its skipped result (one snapshot record)
  const p = createPresenter({ executeTool: () => 'ok' })
  await feed(p, [parseAssistantMessage(msg, { idGenerator: counter('id') }) as unknown as DiffRecord])
  t.same(p.results.map((r) => [r.name, r.status]), [['read_file', 'ok'], ['execute_command', 'skipped'], ['read_file', 'skipped']])
})

t.test('7.3 with parallelToolCalls every tool runs and all text is shown', async (t) => {
  const run = await present(['A <read_file><path>a</path></read_file> B <read_file><path>b</path></read_file> C'], { parallelToolCalls: true })
  t.same(run.executed, ['read_file', 'read_file'])
  t.same(run.says.filter((s) => !s.partial).map((s) => s.content), ['A', 'B', 'C'])
  t.same(run.interrupts, [])
  t.equal(run.error, undefined)
})

t.test('7.4 a rejection skips every later tool, hides later text, interrupts', async (t) => {
  const msg = 'A <read_file><path>a</path></read_file> B <write_to_file><path>w</path><content>x</content></write_to_file> C <read_file><path>c</path></read_file> D'
  const run = await present([msg], {
    parallelToolCalls: true,
    executeTool: (b) => (b.name === 'write_to_file' ? { content: 'The user denied this operation.', rejected: true } : `read ${b.params.path}`),
  })
  t.same(run.results.map((r) => [r.name, r.status]), [['read_file', 'ok'], ['write_to_file', 'rejected'], ['read_file', 'skipped']])
  t.match(run.results[2]!.content, /a previous tool was rejected/)
  t.equal(run.results[1]!.content, 'The user denied this operation.')
  t.same(run.says.filter((s) => !s.partial).map((s) => s.content), ['A', 'B'], 'C and D are not shown')
  t.same(run.interrupts, [{ reason: 'rejected', note: INTERRUPT_NOTES.rejected }])
  t.same(run.ready, [run.results])
  // rejection wins over tool-used when both apply
  const first = createPresenter({ executeTool: () => ({ content: 'no', rejected: true }) })
  const reasons: string[] = []
  first.on('interrupt', (i: InterruptInfo) => reasons.push(i.reason))
  await feed(first, [[write('w'), read('c')] as unknown as DiffRecord])
  t.same(reasons, ['rejected'])
  t.same(first.results.map((r) => r.status), ['rejected', 'skipped'])
})

t.test('7.7 an executor that throws gives an error result; presentation goes on', async (t) => {
  const run = await present(['A <read_file><path>a</path></read_file> B <read_file><path>b</path></read_file> C'], {
    parallelToolCalls: true,
    executeTool: (b) => {
      if (b.params.path === 'a') throw new Error('ENOENT: no such file a')
      return 'fine'
    },
  })
  t.same(run.results.map((r) => [r.status, r.content]), [['error', 'ENOENT: no such file a'], ['ok', 'fine']])
  t.same(run.says.filter((s) => !s.partial).map((s) => s.content), ['A', 'B', 'C'])
  t.equal(run.error, undefined)
  // async rejections and bad return values too
  const bad = await present(['<read_file><path>a</path></read_file><read_file><path>b</path></read_file>'], {
    parallelToolCalls: true,
    executeTool: async (b) => {
      if (b.params.path === 'a') throw 'plain string thrown'
      return undefined as unknown as string
    },
  })
  t.same(bad.results.map((r) => r.status), ['error', 'error'])
  t.equal(bad.results[0]!.content, 'plain string thrown')
  t.match(bad.results[1]!.content, /expected a string or \{ content \}/)
})

t.test('a sync executor whose outcome stops nothing: the write presents the tool and what follows at once', async (t) => {
  const events: string[] = []
  const p = createPresenter({
    parallelToolCalls: true,
    say: (m) => { events.push(`say ${m.content}${m.partial ? '…' : ''}`) },
    executeTool: (b) => {
      if (b.params.path === 'bad') throw new Error('no such file')
      return b.params.path === 'odd' ? ({ content: 'odd' } as { content: string }) : `read ${b.params.path}`
    },
  })
  p.on('tool', (b: ToolUseBlock) => events.push(`tool ${b.params.path}`))
  p.on('result', (r: ToolResult) => events.push(`result ${r.status} ${r.content}`))
  const blocks = parseAssistantMessage('A <read_file><path>a</path></read_file><read_file><path>bad</path></read_file><read_file><path>odd</path></read_file> B', { idGenerator: counter('id') })
  // a snapshot written whole: three complete tools in a row, then partial text
  let called = false
  p.write(blocks, () => { called = true })
  t.same(events, ['say A', 'tool a', 'result ok read a', 'tool bad', 'result error no such file', 'tool odd', 'result ok odd', 'say B…'], 'all within the write')
  t.equal(p.results.length, 3, 'results recorded when write returns')
  t.equal(p.cursor, 4)
  await sleep(0)
  t.ok(called)
  p.end()
  await once(p, 'finish')
})

t.test('a sync executor whose outcome stops the message: its result is recorded a tick later, as before', async (t) => {
  for (const [opts, reason] of [[{ executeTool: () => ({ content: 'no', rejected: true }), parallelToolCalls: true }, 'rejected'], [{ executeTool: () => 'ran' }, 'tool-used']] as const) {
    const order: string[] = []
    const p = createPresenter({ ...opts })
    const torn = once(p, 'error') // the interrupt tears the Presenter down (InterruptError)
    p.on('result', (r: ToolResult) => order.push(`result ${r.status}`))
    p.on('interrupt', (i: InterruptInfo) => order.push(`interrupt ${i.reason}`))
    p.write(parseAssistantMessage('<read_file><path>a</path></read_file><read_file><path>b</path></read_file>', { idGenerator: counter('id') }))
    t.same(order, [], `${reason}: nothing recorded within the write`)
    await sleep(0)
    t.same(order.slice(0, 2), [`result ${reason === 'rejected' ? 'rejected' : 'ok'}`, `interrupt ${reason}`])
    t.same(p.results.map((r) => r.status), [reason === 'rejected' ? 'rejected' : 'ok', 'skipped'])
    const [err] = await torn
    t.ok(err instanceof InterruptError)
  }
})

t.test('many complete tool calls in a row, each ended synchronously: presented in a loop, not a recursion', async (t) => {
  const n = 50_000
  const blocks: Block[] = []
  for (let i = 0; i < n; i++) blocks.push({ type: 'tool_use', name: 'read_file', params: { path: `f${i}` }, partial: false, call_id: `c${i}`, isNativeToolCall: false })
  let ran = 0
  const p = createPresenter({ parallelToolCalls: true, executeTool: () => { ran++; return '' } })
  p.write(blocks)
  p.end()
  await once(p, 'finish')
  t.equal(ran, n)
  t.equal(p.results.length, n)
  t.equal(p.cursor, n)
})

t.test('a tool cut off by the end of the input is never executed (robust truncation, or left partial)', async (t) => {
  const executed: string[] = []
  const presenter = createPresenter({ executeTool: (b) => { executed.push(b.name); return 'ran' } })
  await pipeline(Readable.from(['Go. <execute_command><command>rm -rf /tmp/x', 'yz']), createBlockParser({ profile: 'robust', idGenerator: counter('id') }), presenter)
  t.same(executed, [], 'not run')
  t.equal(presenter.results.length, 1)
  t.equal(presenter.results[0]!.status, 'error')
  t.match(presenter.results[0]!.content, /cut off/)
  // without the truncation flag, a tool still partial at the end (completeOnEnd: false) is not run either
  const p2 = createPresenter({ executeTool: (b) => { executed.push(b.name); return 'ran' } })
  await pipeline(Readable.from(['<read_file><path>sr']), createBlockParser({ completeOnEnd: false }), p2)
  t.same(executed, [])
  t.match(p2.results[0], { status: 'error', name: 'read_file', content: /cut off/ })
})

t.test('checkpoint: a read-only tool runs before it resolves, a write waits for it', async (t) => {
  let release!: () => void
  const checkpoint = new Promise<void>((r) => { release = r })
  let resolved = false
  const log: string[] = []
  const p = createPresenter({
    parallelToolCalls: true,
    checkpoint: checkpoint.then(() => { resolved = true }),
    executeTool: (b) => {
      log.push(`${b.name}:${resolved ? 'after' : 'before'}`)
      return 'ok'
    },
  })
  p.write({ op: 'add', index: 0, block: read('a') })
  p.write({ op: 'add', index: 1, block: { type: 'tool_use', name: 'write_to_file', params: { path: 'w' }, partial: false, call_id: 'w', isNativeToolCall: false } })
  p.write({ op: 'add', index: 2, block: { type: 'tool_use', name: 'execute_command', params: { command: 'ls' }, partial: false, call_id: 'e', isNativeToolCall: false } })
  p.end()
  await sleep(20)
  t.same(log, ['read_file:before'], 'the read ran; the write is waiting')
  t.equal(p.cursor, 1)
  release()
  await once(p, 'finish')
  t.same(log, ['read_file:before', 'write_to_file:after', 'execute_command:after'])
})

t.test('checkpoint that fails: tools that write get an error result instead of running', async (t) => {
  const ran: string[] = []
  const p = createPresenter({
    parallelToolCalls: true,
    checkpoint: Promise.reject(new Error('git is not installed')),
    executeTool: (b) => { ran.push(b.name); return 'ok' },
  })
  await feed(p, [
    { op: 'add', index: 0, block: read('a') },
    { op: 'add', index: 1, block: { type: 'tool_use', name: 'write_to_file', params: { path: 'w' }, partial: false, call_id: 'w', isNativeToolCall: false } },
  ])
  t.same(ran, ['read_file'])
  t.match(p.results[1], { status: 'error', content: /checkpoint.*git is not installed/ })
  // an attempt that failed this way still counts as the message's one tool
  const q = createPresenter({ checkpoint: Promise.reject(new Error('no git')), executeTool: (b) => { ran.push(b.name); return 'ok' } })
  await feed(q, [[write('w'), read('r')] as unknown as DiffRecord])
  t.same(q.results.map((r) => r.status), ['error', 'skipped'])
  t.equal(q.interrupted?.reason, 'tool-used')
})

t.test('7.6 ready fires once with the results, before finish; pipeline resolves', async (t) => {
  const events: string[] = []
  const p = createPresenter({ parallelToolCalls: true, executeTool: (b) => `r:${b.params.path}` })
  p.on('tool', (b: ToolUseBlock) => events.push(`tool ${b.params.path}`))
  p.on('result', (r: ToolResult) => events.push(`result ${r.status}`))
  p.on('ready', (r: ToolResult[]) => events.push(`ready ${r.length}`))
  p.on('finish', () => events.push('finish'))
  await pipeline(Readable.from(['<read_file><path>a</path></read_file>', ' and <read_file><path>b</path></read_file> done']), createBlockParser({ idGenerator: counter('id') }), p)
  t.same(events, ['tool a', 'result ok', 'tool b', 'result ok', 'ready 2', 'finish'])
  t.same(p.results, [
    { call_id: 'id1', name: 'read_file', content: 'r:a', status: 'ok' },
    { call_id: 'id2', name: 'read_file', content: 'r:b', status: 'ok' },
  ])
  t.same(Object.keys(p.results[0]!), ['call_id', 'name', 'content', 'status'])
  t.equal(p.interrupted, null)
})

t.test('ready waits until every block is complete and handled (input ended), not just until a lull', async (t) => {
  const p = createPresenter({ executeTool: () => 'x' })
  let ready = 0
  p.on('ready', () => ready++)
  p.write({ op: 'add', index: 0, block: text('Hello', true) })
  await sleep(10)
  t.equal(ready, 0)
  p.write({ op: 'complete', index: 0 })
  await sleep(10)
  t.equal(ready, 0, 'complete, but the input has not ended')
  p.end()
  await once(p, 'finish')
  t.equal(ready, 1)
})

t.test('7.10 diffs that pile up while a tool runs are applied together: one say per block', async (t) => {
  const says: SayMessage[] = []
  let release!: () => void
  const p = createPresenter({
    parallelToolCalls: true,
    say: (m) => { says.push(m) },
    executeTool: () => new Promise<string>((r) => { release = () => r('ok') }),
  })
  p.write({ op: 'add', index: 0, block: read('a') })
  p.write({ op: 'add', index: 1, block: text('x', true) })
  for (let i = 0; i < 200; i++) p.write({ op: 'append', index: 1, path: 'content', text: String(i % 10) })
  await sleep(5)
  t.equal(says.length, 0, 'nothing shown while the tool runs')
  release()
  await sleep(5)
  t.equal(says.length, 1, '201 buffered diffs to one block → one update')
  p.write({ op: 'complete', index: 1 })
  p.end()
  await once(p, 'finish')
  t.equal(says.length, 2, 'then the final one')
  t.equal(says[0]!.content.length, 201)
  t.same(says[1], { type: 'text', content: says[0]!.content, partial: false })
})

t.test('7.10 through a pipeline too: a slow UI gets far fewer updates than there are diffs', async (t) => {
  const says: SayMessage[] = []
  let diffs = 0
  const parser = createBlockParser()
  parser.on('data', () => diffs++)
  const p = createPresenter({ say: async (m) => { says.push(m); await sleep(2) }, executeTool: () => '' })
  const chunks = Array.from({ length: 400 }, (_, i) => `w${i} `)
  await pipeline(Readable.from(chunks), parser, p)
  t.ok(diffs >= 400, `${diffs} diffs`)
  t.ok(says.length < diffs / 4, `${says.length} updates`)
  t.equal(says[says.length - 1]!.content, chunks.join('').trim())
})

t.test('cadenceMs: updates of a partial block are spaced, the latest state is shown, the final one is not delayed', async (t) => {
  const says: { m: SayMessage; at: number }[] = []
  const cadenceMs = 40
  const p = createPresenter({ cadenceMs, say: (m) => { says.push({ m, at: Date.now() }) }, executeTool: () => '' })
  const start = Date.now()
  p.write({ op: 'add', index: 0, block: text('0', true) })
  for (let i = 1; i < 30; i++) {
    await sleep(3)
    p.write({ op: 'append', index: 0, path: 'content', text: String(i % 10) })
  }
  const elapsed = Date.now() - start
  await sleep(cadenceMs + 20) // the trailing update arrives without any new diff
  const partials = says.filter((s) => s.m.partial)
  t.ok(partials.length <= Math.ceil(elapsed / cadenceMs) + 2, `${partials.length} updates in ${elapsed} ms`)
  t.ok(partials.length >= 2)
  for (let i = 1; i < partials.length; i++) t.ok(partials[i]!.at - partials[i - 1]!.at >= cadenceMs - 2, 'spaced by cadenceMs')
  t.equal(partials[partials.length - 1]!.m.content, '012345678901234567890123456789', 'the latest state was shown after the interval')
  const before = says.length
  p.write({ op: 'complete', index: 0 })
  await sleep(1)
  t.equal(says.length, before + 1, 'the final update is immediate')
  t.equal(says[says.length - 1]!.m.partial, false)
  p.end()
  await once(p, 'finish')
})

t.test('markers: message/end reset the snapshot per message; diagnostics are ignored; interrupt ends only that message', async (t) => {
  const says: SayMessage[] = []
  const interrupts: InterruptInfo[] = []
  const p = createPresenter({ say: (m) => { says.push(m) }, executeTool: (b) => `ran ${b.params.path}` })
  p.on('interrupt', (i: InterruptInfo) => interrupts.push(i))
  let ready: ToolResult[] | undefined
  p.on('ready', (r: ToolResult[]) => { ready = r })
  const msg = (id: string, blocks: Block[]): DiffRecord[] => [{ op: 'message', id }, ...diffBlocks([], blocks), { op: 'diagnostic', code: 'unknown-tool', message: 'x', offset: 0 }, { op: 'end', id }]
  await feed(p, [
    ...msg('m1', [text('One'), read('a'), text('hidden'), read('b')]),
    ...msg('m2', [text('Two', true)]),
    ...msg('m3', [read('c')]),
  ])
  t.same(says.map((s) => [s.content, s.partial]), [['One', false], ['Two', true], ['Two', false]], 'a partial block at a message end is finalised')
  t.same(p.results.map((r) => [r.call_id, r.status]), [['r-a', 'ok'], ['r-b', 'skipped'], ['r-c', 'ok']])
  t.equal(interrupts.length, 2, 'one interrupt per message that used a tool')
  t.same(ready, p.results, 'ready once at the end of the input')
})

t.test('markers: text that streams in after an interrupt is not shown, however it grows', async (t) => {
  const says: SayMessage[] = []
  const p = createPresenter({ say: (m) => { says.push(m) }, executeTool: () => 'ok' })
  // one diff at a time, each written once the previous one was presented: nothing is coalesced
  const records: DiffRecord[] = [
    { op: 'message', id: 'm1' },
    { op: 'add', index: 0, block: text('One') },
    { op: 'add', index: 1, block: read('a') },
    { op: 'add', index: 2, block: text('hid', true) },
    { op: 'append', index: 2, path: 'content', text: 'den' },
    { op: 'append', index: 2, path: 'content', text: ' text' },
    { op: 'complete', index: 2 },
    { op: 'end', id: 'm1' },
    { op: 'message', id: 'm2' },
    { op: 'add', index: 0, block: text('Tw', true) },
    { op: 'append', index: 0, path: 'content', text: 'o' },
    { op: 'end', id: 'm2' },
  ]
  for (const r of records) await new Promise<void>((resolve, reject) => p.write(r, (err) => (err ? reject(err) : resolve())))
  p.end()
  await once(p, 'finish')
  t.same(says.map((s) => [s.content, s.partial]), [['One', false], ['Tw', true], ['Two', true], ['Two', false]])
})

t.test('snapshots (emit: snapshots) are accepted as records', async (t) => {
  const p = createPresenter({ parallelToolCalls: true, executeTool: (b) => b.params.path! })
  const source = Readable.from(['A <read_file><path>x</path></read_file> B'])
  await pipeline(source, createBlockParser({ emit: 'snapshots', idGenerator: counter('id') }), p)
  t.same(p.results, [{ call_id: 'id1', name: 'read_file', content: 'x', status: 'ok' }])
})

t.test('options are checked when the presenter is made', async (t) => {
  t.throws(() => createPresenter({} as PresenterOptions), { code: 'ERR_INVALID_OPTION' })
  t.throws(() => createPresenter({ executeTool: () => '', cadenceMs: -1 }), { code: 'ERR_INVALID_OPTION' })
  t.throws(() => createPresenter({ executeTool: () => '', checkpoint: 5 as unknown as Promise<void> }), { code: 'ERR_INVALID_OPTION' })
  t.throws(() => createPresenter({ executeTool: () => '', say: 'x' as unknown as () => void }), { code: 'ERR_INVALID_OPTION' })
  t.throws(() => createPresenter({ executeTool: () => '', readOnlyTools: 'read_file' as unknown as string[] }), { code: 'ERR_INVALID_OPTION' })
})

t.test('readOnlyTools option overrides the dialect', async (t) => {
  let release!: () => void
  const ran: string[] = []
  const p = createPresenter({
    parallelToolCalls: true,
    readOnlyTools: ['execute_command'],
    checkpoint: new Promise<void>((r) => { release = r }),
    executeTool: (b) => { ran.push(b.name); return '' },
  })
  p.write({ op: 'add', index: 0, block: { type: 'tool_use', name: 'execute_command', params: {}, partial: false, call_id: 'e', isNativeToolCall: false } })
  p.write({ op: 'add', index: 1, block: read('a') })
  p.end()
  await sleep(10)
  t.same(ran, ['execute_command'], 'read_file is no longer read-only here and waits')
  release()
  await once(p, 'finish')
  t.same(ran, ['execute_command', 'read_file'])
})

t.test('InterruptError is an AbortError', async (t) => {
  const e = new InterruptError({ reason: 'tool-used', note: INTERRUPT_NOTES['tool-used'] })
  t.equal(e.name, 'AbortError')
  t.equal(e.code, 'ABORT_ERR')
  t.equal(e.reason, 'tool-used')
  t.ok(e instanceof Error)
})

t.test('cadenceMs: a trailing update that falls due while a tool runs waits its turn', async (t) => {
  const log: string[] = []
  const p = createPresenter({
    parallelToolCalls: true,
    cadenceMs: 15,
    say: (m) => { log.push(`say ${m.content} ${m.partial}`) },
    executeTool: async () => {
      log.push('tool start')
      await sleep(40) // the cadence timer of block 2 fires meanwhile
      log.push('tool end')
      return ''
    },
  })
  p.write({ op: 'add', index: 0, block: text('a', true) })
  p.write({ op: 'append', index: 0, path: 'content', text: 'b' }) // deferred: too soon after 'a'
  p.write({ op: 'complete', index: 0 }) // the final update is not delayed
  p.write({ op: 'add', index: 1, block: read('x') })
  p.write({ op: 'add', index: 2, block: text('c', true) })
  await sleep(80)
  t.same(log, ['say a true', 'say ab false', 'tool start', 'tool end', 'say c true'])
  p.end()
  await once(p, 'finish')
  t.same(log.slice(-1), ['say c false'])
})
