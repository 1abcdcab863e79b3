// The Presenter with native tool calls (SPEC 8a, 7): the same executor and the same one-tool,
// rejection and checkpoint rules as tag calls; a call with incomplete arguments never runs.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import {
  createPresenter, readLog, replayDiffs, InterruptError,
  type DiffRecord, type ToolUseBlock, type PresenterOptions, type ReplayEvent,
} from '../lib/index.js'
import { all } from './helpers/arb.js'

const OPENAI = readFileSync('test/fixtures/native/openai_tools.sse')

async function present(records: DiffRecord[], options: Partial<PresenterOptions> = {}) {
  const ran: ToolUseBlock[] = []
  const presenter = createPresenter({
    executeTool: (b) => {
      ran.push(b)
      return { content: `ran ${b.name}` }
    },
    ...options,
  })
  try {
    await pipeline(Readable.from(records), presenter)
  } catch (err) {
    if (!(err instanceof InterruptError)) throw err
  }
  return { ran, results: presenter.results }
}

t.test('one tool per message: the first native call runs, the rest are skipped; a cut call is an error, never run', async (t) => {
  const records = await all(replayDiffs(readLog([OPENAI])))
  const { ran, results } = await present(records)
  t.same(ran.map((b) => [b.name, b.call_id, b.isNativeToolCall, b.params]), [['read_file', 'call_R1', true, { path: 'config/app.json' }]])
  t.same(results.map((r) => [r.call_id, r.status]), [['call_R1', 'ok'], ['call_W2', 'skipped'], ['call_L3', 'skipped'], ['call_C4', 'error']])
  t.match(results[3]!.content, /Tool \[write_to_file\] was not executed: its arguments were incomplete \(not a complete JSON object when the call ended\)/)
})

t.test('parallelToolCalls: every complete native call runs in order, with the final params', async (t) => {
  const records = await all(replayDiffs(readLog([OPENAI])))
  const { ran, results } = await present(records, { parallelToolCalls: true })
  t.same(ran.map((b) => b.call_id), ['call_R1', 'call_W2', 'call_L3'])
  t.equal(ran[1]!.params.content, '# Notes\n\nTabs\tand "quotes" and a back\\slash é\u{1F680} done\n')
  t.same(results.map((r) => r.status), ['ok', 'ok', 'ok', 'error'])
})

t.test('a rejected native call: later calls skipped', async (t) => {
  const records = await all(replayDiffs(readLog([OPENAI])))
  const { results } = await present(records, { parallelToolCalls: true, executeTool: (b) => ({ content: 'no', rejected: b.name === 'read_file' }) })
  t.same(results.map((r) => r.status), ['rejected', 'skipped', 'skipped', 'error'])
  t.match(results[1]!.content, /a previous tool was rejected/)
})

t.test('checkpoint: a native write waits for it, a native read does not', async (t) => {
  const order: string[] = []
  let release!: () => void
  const checkpoint = new Promise<void>((resolve) => (release = resolve)).then(() => void order.push('checkpoint'))
  const records = await all(replayDiffs(readLog([OPENAI])))
  setTimeout(() => release(), 20)
  await present(records, { parallelToolCalls: true, checkpoint, executeTool: (b) => (order.push(b.name), { content: 'ok' }) })
  t.same(order, ['read_file', 'checkpoint', 'write_to_file', 'list_files'])
})

t.test('onToolPartial sees a native call grow; every value a prefix of the one executed', async (t) => {
  const events: ReplayEvent[] = [{ type: 'message', id: 'm' }, { type: 'tool', key: '0', id: 'call_big', name: 'write_to_file', args: '', t: 0 }]
  const content = 'line\n'.repeat(2000)
  const json = JSON.stringify({ path: 'a.txt', content })
  for (let i = 0; i < json.length; i += 7) events.push({ type: 'tool', key: '0', args: json.slice(i, i + 7), t: 0 })
  events.push({ type: 'tool_end', key: '0' }, { type: 'end', id: 'm' })
  const seen: string[] = []
  const { ran } = await present(await all(replayDiffs(events)), {
    onToolPartial: (b) => void seen.push(b.params.content ?? ''),
    cadenceMs: 0,
  })
  t.equal(ran.length, 1)
  t.equal(ran[0]!.params.content, content)
  t.ok(seen.length > 10, `${seen.length} partial updates`)
  t.ok(seen.every((v) => content.startsWith(v)), 'each a prefix of the final content')
})

t.test('a native call still partial when the input ends (completeOnEnd: false) is never run', async (t) => {
  const events: ReplayEvent[] = [{ type: 'message', id: 'm' }, { type: 'tool', key: '0', id: 'c', name: 'read_file', args: '{"path":"a', t: 0 }, { type: 'end', id: 'm' }]
  const records = (await all(replayDiffs(events, { completeOnEnd: false }))).filter((r) => r.op !== 'end' && r.op !== 'message')
  const { ran, results } = await present(records)
  t.same(ran, [])
  t.match(results, [{ call_id: 'c', status: 'error', content: /the input ended before its arguments were complete/ }])
})
