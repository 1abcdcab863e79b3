// Presenter as a stream: interrupts and pipeline teardown (7.5), abort (7.8), backpressure (7.9),
// and the stream contract (errors go to destroy, never thrown; destroy emits close).
import t from 'tap'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { once } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import {
  createBlockParser, createPresenter, InterruptError, TagstreamError, parseAssistantMessage, cleanDisplayText,
  type ToolResult, type InterruptInfo, type SayMessage,
} from '../lib/index.js'
import { counter } from './helpers/arb.js'


/** A source that makes chunks on demand, up to `max`, counting what it produced. */
function countingSource(first: string, size: number, max: number): Readable & { produced: number; bytes: number } {
  const filler = 'lorem ipsum dolor sit amet, '.repeat(Math.ceil(size / 28)).slice(0, size)
  const src = new Readable({
    read() {
      if (src.produced >= max) {
        this.push(null)
        return
      }
      const chunk = src.produced === 0 ? first : filler
      src.produced++
      src.bytes += chunk.length
      this.push(chunk)
    },
  }) as Readable & { produced: number; bytes: number }
  src.produced = 0
  src.bytes = 0
  return src
}

t.test('7.5 after an interrupt the source is no longer read: pipeline rejects with InterruptError, results are final', async (t) => {
  const src = countingSource('Let me look. <read_file><path>a.ts</path></read_file>', 1024, 10_000)
  const events: string[] = []
  const presenter = createPresenter({ executeTool: () => 'export {}' })
  presenter.on('interrupt', (i: InterruptInfo) => events.push(`interrupt ${i.reason}`))
  presenter.on('ready', (r: ToolResult[]) => events.push(`ready ${r.length}`))
  presenter.on('error', () => events.push('error'))
  presenter.on('close', () => events.push('close'))
  const err = await pipeline(src, createBlockParser({ idGenerator: counter('id') }), presenter).then(() => null, (e: unknown) => e)
  t.ok(err instanceof InterruptError, 'rejects with the InterruptError')
  t.equal((err as InterruptError).reason, 'tool-used')
  t.equal((err as InterruptError).name, 'AbortError')
  t.match((err as InterruptError).note, /Only one tool may be used per message/)
  t.same(events.slice(0, 2), ['interrupt tool-used', 'ready 1'], 'interrupt, then ready, before the teardown')
  t.ok(events.includes('close'))
  t.ok(src.destroyed, 'the source was destroyed (the model request would be cancelled)')
  const produced = src.produced
  t.ok(produced < 200, `the source produced ${produced} of 10000 chunks`)
  await sleep(30)
  t.equal(src.produced, produced, 'and nothing more afterwards')
  t.same(presenter.results, [{ call_id: 'id1', name: 'read_file', content: 'export {}', status: 'ok' }])
  t.same(presenter.interrupted, { reason: 'tool-used', note: (err as InterruptError).note })
})

t.test('7.5 a rejection interrupts the pipeline too', async (t) => {
  const src = countingSource('<execute_command><command>rm -rf build</command></execute_command>', 1024, 10_000)
  const presenter = createPresenter({ parallelToolCalls: true, executeTool: () => ({ content: 'denied', rejected: true }) })
  const err = await pipeline(src, createBlockParser(), presenter).then(() => null, (e: unknown) => e)
  t.ok(err instanceof InterruptError)
  t.equal((err as InterruptError).reason, 'rejected')
  t.ok(src.produced < 200, `produced ${src.produced}`)
  t.same(presenter.results.map((r) => r.status), ['rejected'])
})

t.test('7.5 when the input had already all arrived, the pipeline resolves (nothing was left to stop)', async (t) => {
  const interrupts: InterruptInfo[] = []
  let ready = 0
  const presenter = createPresenter({
    executeTool: async () => {
      await sleep(30) // the source ends meanwhile
      return 'ok'
    },
  })
  presenter.on('interrupt', (i: InterruptInfo) => interrupts.push(i))
  presenter.on('ready', () => ready++)
  await pipeline(Readable.from(['Reading. <read_file><path>a</path></read_file>', ' trailing words']), createBlockParser(), presenter)
  t.equal(interrupts.length, 1, 'the interrupt is still reported, for the note')
  t.equal(ready, 1)
  t.same(presenter.results.map((r) => r.status), ['ok'])
  t.ok(presenter.writableFinished)
})

t.test('7.8 abort during a tool: the tool signal aborts, the presenter fails with AbortError, results stay', async (t) => {
  const ac = new AbortController()
  let toolSignal: AbortSignal | undefined
  const presenter = createPresenter({
    parallelToolCalls: true,
    signal: ac.signal,
    executeTool: (b, { signal }) => {
      if (b.params.path === 'a') return 'quick'
      toolSignal = signal
      setTimeout(() => ac.abort(), 10)
      return new Promise<string>(() => { /* never settles by itself: only the abort ends it */ })
    },
  })
  let closed = false
  presenter.on('close', () => { closed = true })
  const src = countingSource('<read_file><path>a</path></read_file><read_file><path>b</path></read_file>', 512, 10_000)
  const err = await pipeline(src, createBlockParser({ idGenerator: counter('id') }), presenter).then(() => null, (e: unknown) => e)
  t.match(err, { name: 'AbortError', code: 'ABORT_ERR' })
  t.notOk(err instanceof InterruptError, 'not an interrupt')
  t.equal(toolSignal?.aborted, true, 'the running tool was told')
  t.ok(closed && presenter.destroyed)
  t.ok(src.destroyed && src.produced < 200)
  t.same(presenter.results.map((r) => [r.call_id, r.status]), [['id1', 'ok'], ['id2', 'error']])
  t.match(presenter.results[1]!.content, /aborted/)
})

t.test('7.8 abort while the first write waits for the checkpoint, and an already aborted signal', async (t) => {
  const ac = new AbortController()
  let ran = 0
  const p = createPresenter({ signal: ac.signal, checkpoint: new Promise(() => {}), executeTool: () => { ran++; return '' } })
  p.write({ op: 'add', index: 0, block: { type: 'tool_use', name: 'write_to_file', params: {}, partial: false, call_id: 'w', isNativeToolCall: false } })
  const errored = once(p, 'error')
  await sleep(5)
  ac.abort()
  const [err] = await errored
  t.match(err, { name: 'AbortError' })
  t.equal(ran, 0, 'the write never ran')
  const p2 = createPresenter({ signal: AbortSignal.abort(), executeTool: () => '' })
  const [err2] = await once(p2, 'error')
  t.match(err2, { name: 'AbortError', code: 'ABORT_ERR' })
})

t.test('destroying the presenter while a tool runs aborts the tool', async (t) => {
  let toolSignal: AbortSignal | undefined
  const p = createPresenter({ executeTool: (_b, { signal }) => { toolSignal = signal; return new Promise<string>(() => {}) } })
  p.write({ op: 'add', index: 0, block: { type: 'tool_use', name: 'read_file', params: {}, partial: false, call_id: 'r', isNativeToolCall: false } })
  await sleep(5)
  p.destroy()
  await once(p, 'close')
  t.equal(toolSignal?.aborted, true)
  t.equal(p.results[0]?.status, 'error')
})

t.test('7.9 the write callback fires only once the diff was presented', async (t) => {
  let releaseSay!: () => void
  const p = createPresenter({ say: () => new Promise<void>((r) => { releaseSay = r }), executeTool: () => '' })
  let called = false
  p.write({ op: 'add', index: 0, block: { type: 'text', content: 'hi', partial: true } }, () => { called = true })
  await sleep(10)
  t.notOk(called, 'held while say is pending')
  releaseSay()
  await sleep(1)
  t.ok(called)
  p.destroy()
})

t.test('7.9 backpressure: a 50 MB source behind a tool waiting 300 ms for approval produces only a few highWaterMarks', async (t) => {
  const CHUNK = 16 * 1024
  const MAX = Math.ceil((50 * 1024 * 1024) / CHUNK) // the source could produce 50 MB
  const src = countingSource('I need to read it first. <read_file><path>big.ts</path></read_file>\n', CHUNK, MAX)
  let atStart = 0
  let midway = 0
  const presenter = createPresenter({
    executeTool: async () => {
      const t0 = Date.now()
      // let the pipeline fill up: until the source stops producing (or 150 ms)
      let last = -1
      while (src.bytes !== last && Date.now() - t0 < 150) {
        last = src.bytes
        await sleep(15)
      }
      atStart = src.bytes
      await sleep(Math.max(0, 300 - (Date.now() - t0))) // approval after 300 ms in all
      midway = src.bytes
      return 'approved'
    },
  })
  const err = await pipeline(src, createBlockParser(), presenter).then(() => null, (e: unknown) => e)
  t.ok(err instanceof InterruptError)
  // buffers on the way: the source's (16 KiB), the parser's writable (16 chunks) and readable
  // (16 diffs) sides, the presenter's (16 diffs): about 50 chunks of 16 KiB
  const bound = 64 * CHUNK
  t.ok(atStart <= bound, `${(atStart / 1024).toFixed(0)} KiB produced before the approval`)
  t.equal(midway, atStart, 'nothing more produced while the tool kept waiting')
  t.ok(src.bytes <= bound + 4 * CHUNK, `${(src.bytes / 1024).toFixed(0)} KiB produced in all, of 50 MiB`)
  t.same(presenter.results.map((r) => r.status), ['ok'])
})

t.test('errors reject pipeline and are never thrown from write()', async (t) => {
  // a diff that does not apply
  const p1 = createPresenter({ executeTool: () => '' })
  const bad = Readable.from([{ op: 'append', index: 3, path: 'content', text: 'x' }])
  await t.rejects(pipeline(bad, p1), { name: 'TagstreamError', code: 'ERR_INVALID_DIFF' })
  // a record that is not a diff
  const p2 = createPresenter({ executeTool: () => '' })
  t.doesNotThrow(() => p2.write(42))
  const [e2] = await once(p2, 'error')
  t.ok(e2 instanceof TagstreamError && e2.code === 'ERR_INVALID_DIFF')
  // a diff that changes a block already presented as complete (it may have been executed)
  const p3 = createPresenter({ executeTool: () => '' })
  p3.write({ op: 'add', index: 0, block: { type: 'text', content: 'done', partial: false } })
  p3.write({ op: 'append', index: 0, path: 'content', text: '!' })
  const [e3] = await once(p3, 'error')
  t.match(e3, { code: 'ERR_INVALID_DIFF', message: /already presented/ })
  // a failing UI hook
  const p4 = createPresenter({ say: () => { throw new Error('terminal gone') }, executeTool: () => '' })
  await t.rejects(pipeline(Readable.from(['hello']), createBlockParser(), p4), { message: 'terminal gone' })
  const p5 = createPresenter({ say: async () => { throw new Error('async gone') }, executeTool: () => '' })
  await t.rejects(pipeline(Readable.from(['hello']), createBlockParser(), p5), { message: 'async gone' })
  // a hook that fails on a later update, an append presented by write() itself: the stream
  // fails with it, write() returns normally, and what was shown before stays shown
  const shown: string[] = []
  const p7 = createPresenter({
    onToolPartial: (b) => { if (b.params.path === 'a.tsx') throw new Error('preview gone'); shown.push(b.params.path!) },
    executeTool: () => '',
  })
  p7.write({ op: 'add', index: 0, block: { type: 'tool_use', name: 'read_file', params: { path: 'a.ts' }, partial: true, call_id: 'c1', isNativeToolCall: false } })
  t.doesNotThrow(() => p7.write({ op: 'append', index: 0, path: 'params.path', text: 'x' }))
  const [e7] = await once(p7, 'error')
  t.match(e7, { message: 'preview gone' })
  t.same(shown, ['a.ts'])
  t.same(p7.blocks[0], { type: 'tool_use', name: 'read_file', params: { path: 'a.tsx' }, partial: true, call_id: 'c1', isNativeToolCall: false }, 'the append was applied')
  // upstream errors tear the presenter down too
  const p6 = createPresenter({ executeTool: () => '' })
  await t.rejects(pipeline(Readable.from([{ not: 'text' }]), createBlockParser(), p6), { code: 'ERR_INVALID_CHUNK' })
  t.ok(p6.destroyed)
})

t.test('destroy() emits close, with or without an error', async (t) => {
  const p = createPresenter({ executeTool: () => '' })
  const closed = once(p, 'close')
  p.destroy()
  await closed
  t.ok(p.destroyed)
  const q = createPresenter({ executeTool: () => '' })
  const errs: unknown[] = []
  q.on('error', (e) => errs.push(e))
  const qClosed = new Promise((r) => q.on('close', r)) // events.once would reject on the error
  q.destroy(new Error('boom'))
  await qClosed
  t.equal(errs.length, 1)
})

t.test('text and partial updates flow through events as well as hooks', async (t) => {
  const texts: SayMessage[] = []
  const p = createPresenter({ executeTool: () => '' })
  p.on('text', (m: SayMessage) => texts.push(m))
  await pipeline(Readable.from(['Hel', 'lo']), createBlockParser(), p)
  t.same(texts, [
    { type: 'text', content: 'Hel', partial: true },
    { type: 'text', content: 'Hello', partial: true },
    { type: 'text', content: 'Hello', partial: false },
  ])
})

t.test('a text listener added or removed while a block streams: updates from its next change, none after it left', async (t) => {
  const p = createPresenter({ executeTool: () => '' })
  const seen: [string, string, boolean][] = []
  const write = (d: unknown) => new Promise<void>((resolve, reject) => p.write(d, (err) => (err ? reject(err) : resolve())))
  await write({ op: 'add', index: 0, block: { type: 'text', content: 'a', partial: true } })
  await write({ op: 'append', index: 0, path: 'content', text: ' <thinking>b' })
  const first = (m: SayMessage) => seen.push(['first', m.content, m.partial])
  p.on('text', first)
  await write({ op: 'append', index: 0, path: 'content', text: ' c' })
  p.off('text', first)
  await write({ op: 'append', index: 0, path: 'content', text: ' d' })
  p.once('text', (m: SayMessage) => seen.push(['once', m.content, m.partial]))
  await write({ op: 'append', index: 0, path: 'content', text: ' e' })
  await write({ op: 'append', index: 0, path: 'content', text: ' f' })
  p.prependListener('text', (m: SayMessage) => seen.push(['last', m.content, m.partial]))
  await write({ op: 'complete', index: 0 })
  p.end()
  await once(p, 'finish')
  t.same(seen, [
    ['first', 'a b c', true],
    ['once', 'a b c d e', true],
    ['last', 'a b c d e f', false],
  ], 'each listener gets the whole cleaned text while it listens, nothing once it left')
  t.equal(p.listenerCount('text'), 1)
})

t.test('text listeners after removeAllListeners: none gets an update, and one added later gets them all', async (t) => {
  // the Presenter counts its text listeners once and again only after a change, which it learns
  // from its own newListener and removeListener listeners; removing every listener removes those
  for (const all of [true, false]) {
    const p = createPresenter({ executeTool: () => '' })
    p.on('error', () => {})
    const seen: string[] = []
    const write = (d: unknown) => new Promise<void>((resolve, reject) => p.write(d, (err) => (err ? reject(err) : resolve())))
    p.on('text', (m: SayMessage) => seen.push(`gone ${m.content}`))
    await write({ op: 'add', index: 0, block: { type: 'text', content: 'a', partial: true } })
    if (all) p.removeAllListeners()
    else p.removeAllListeners('text')
    await write({ op: 'append', index: 0, path: 'content', text: ' b' })
    p.on('text', (m: SayMessage) => seen.push(`new ${m.content}`))
    await write({ op: 'append', index: 0, path: 'content', text: ' c' })
    t.same(seen, ['gone a', 'new a b c'], all ? 'removeAllListeners()' : "removeAllListeners('text')")
  }
})

t.test('every malformed diff fails the stream with ERR_INVALID_DIFF', async (t) => {
  const text = { type: 'text', content: 'a', partial: true }
  const tool = { type: 'tool_use', name: 'read_file', params: { path: 'a' }, partial: true, call_id: 'r', isNativeToolCall: false }
  const cases: [string, unknown[]][] = [
    ['add at the wrong index', [{ op: 'add', index: 2, block: text }]],
    ['add of a non-object', [{ op: 'add', index: 0, block: 'text' }]],
    ['add of an unknown block type', [{ op: 'add', index: 0, block: { type: 'image' } }]],
    ['text without content', [{ op: 'add', index: 0, block: { type: 'text', partial: true } }]],
    ['reasoning without reasoning', [{ op: 'add', index: 0, block: { type: 'reasoning', partial: true } }]],
    ['tool without params', [{ op: 'add', index: 0, block: { type: 'tool_use', name: 'x', partial: true } }]],
    ['replace with a bad block', [{ op: 'add', index: 0, block: text }, { op: 'replace', index: 0, block: null }]],
    ['set with a non-string value', [{ op: 'add', index: 0, block: text }, { op: 'set', index: 0, path: 'content', value: 3 }]],
    ['append with a non-string text', [{ op: 'add', index: 0, block: text }, { op: 'append', index: 0, path: 'content', text: 3 }]],
    ['append to a path of another block type', [{ op: 'add', index: 0, block: text }, { op: 'append', index: 0, path: 'reasoning', text: 'x' }]],
    ['append to a missing param', [{ op: 'add', index: 0, block: tool }, { op: 'append', index: 0, path: 'params.command', text: 'x' }]],
    ['a path that is not a string', [{ op: 'add', index: 0, block: tool }, { op: 'set', index: 0, path: 7, value: 'x' }]],
    ['truncate past the end', [{ op: 'truncate', length: 1 }]],
    ['an unknown op', [{ op: 'move', index: 0 }]],
    ['a record without op', [{ index: 0 }]],
    ['truncate below the cursor', [{ op: 'add', index: 0, block: { ...text, partial: false } }, { op: 'truncate', length: 0 }]],
  ]
  for (const [name, records] of cases) {
    const p = createPresenter({ executeTool: () => '' })
    const err = await pipeline(Readable.from(records), p).then(() => null, (e: unknown) => e)
    t.ok(err instanceof TagstreamError && err.code === 'ERR_INVALID_DIFF', name)
  }
})

t.test('a block at the cursor may be truncated and replaced while partial (held-back tags)', async (t) => {
  const says: SayMessage[] = []
  const p = createPresenter({ say: (m) => { says.push(m) }, executeTool: () => '' })
  const records = [
    { op: 'add', index: 0, block: { type: 'text', content: 'Hi', partial: true } },
    { op: 'truncate', length: 0 },
    { op: 'add', index: 0, block: { type: 'text', content: 'Hello', partial: true } },
    { op: 'set', index: 0, path: 'content', value: 'Help' },
    { op: 'replace', index: 0, block: { type: 'text', content: 'Help!', partial: false } },
    { op: 'complete', index: 0 },
  ]
  await pipeline(Readable.from(records), p)
  t.same(says.map((s) => [s.content, s.partial]), [['Hi', true], ['Hello', true], ['Help', true], ['Help!', false]])
  t.same(p.blocks, [{ type: 'text', content: 'Help!', partial: false }])
})

t.test('long blocks through a pipeline: every update is the whole value so far, the last is the parse', async (t) => {
  // long enough for many batches of the presenter's growing strings (128 appends each) and for
  // several flattenings; chunked by 7 so that appends are small and frequent
  const lines: string[] = []
  for (let i = 0; i < 900; i++) lines.push(`  const v${i} = items[${i}] < limit && ok ? "é${i}" : null // <b> ${i}`)
  const code = lines.join('\n')
  let prose = ''
  for (let i = 0; i < 400; i++) prose += `Step ${i}: check a < b, then <thinking>note ${i}</thinking> go. `
  const message = `${prose}\n<write_to_file>\n<path>src/long.ts</path>\n<content>\n${code}\n</content>\n</write_to_file>`
  const chunks = message.match(/[\s\S]{1,7}/g)!
  const expected = parseAssistantMessage(message, { final: true })
  const expectedText = cleanDisplayText((expected[0] as { content: string }).content, false)
  const expectedCode = (expected[1] as { params: Record<string, string> }).params.content!

  const texts: SayMessage[] = []
  let partials = 0
  let badPartial = 0
  let last = ''
  let executed = ''
  const p = createPresenter({
    say: (m) => { texts.push(m) },
    onToolPartial: (b) => {
      partials++
      // each update holds the whole value so far, extending the previous one; as in the original,
      // the start of the closing tag shows until it is complete (`…\n</con`), so that is set aside
      const v = (b.params.content ?? '').replace(/<\/?[A-Za-z_]*$/, '').trimEnd()
      if (!expectedCode.startsWith(v) || v.length < last.length) badPartial++
      last = v
    },
    executeTool: (b) => { executed = b.params.content!; return 'ok' },
  })
  await pipeline(Readable.from(chunks), createBlockParser({ idGenerator: counter('id') }), p)
  t.ok(partials > 1000, `the tool was shown while it streamed (${partials} updates)`)
  t.equal(badPartial, 0, 'no partial update lost or reordered any text')
  t.equal(executed, expectedCode, 'the executed value is the one-shot parse')
  t.ok(texts.length > 1000, 'the text was shown while it streamed')
  t.equal(texts[texts.length - 1]!.partial, false)
  t.equal(texts[texts.length - 1]!.content, expectedText, 'the final text is the cleaned parse')
  t.notOk(texts.some((m) => m.content.includes('<thinking>') || m.content.includes('</thinking>')), 'no tag ever shown')
})

t.test('a tool that settles after the abort: its real outcome replaces the abort error, marked afterAbort', async (t) => {
  // [name, tool, its real outcome, does it settle after close]
  type Case = [string, (signal: AbortSignal) => Promise<unknown>, Partial<ToolResult>, boolean]
  const cases: Case[] = [
    // the tool ignores the signal and finishes its work: the file was written
    ['ignores the signal', async () => { await sleep(15); return 'wrote a.ts' }, { status: 'ok', content: 'wrote a.ts' }, true],
    // it stops at once, before the presenter's close
    ['honours the signal', (signal) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('stopped half-way')))), { status: 'error', content: 'stopped half-way' }, false],
    ['was refused meanwhile', async () => { await sleep(10); return { content: 'denied', rejected: true } }, { status: 'rejected', content: 'denied' }, true],
  ]
  for (const [name, tool, want, late] of cases) {
    const events: string[] = []
    const p = createPresenter({ executeTool: (_b, { signal }) => tool(signal) as Promise<string> })
    p.on('result', (r: ToolResult) => events.push(`${r.status}${r.afterAbort === true ? ' afterAbort' : ''}: ${r.content}`))
    p.on('close', () => events.push('close'))
    p.write({ op: 'add', index: 0, block: { type: 'tool_use', name: 'write_to_file', params: {}, partial: false, call_id: 'w', isNativeToolCall: false } })
    await sleep(3)
    p.destroy()
    t.same(p.results.map((r) => [r.status, r.afterAbort]), [['error', undefined]], `${name}: at the abort, an error`)
    t.match(p.results[0]!.content, /^aborted/)
    await sleep(30)
    t.same(p.results, [{ call_id: 'w', name: 'write_to_file', afterAbort: true, ...want }], `${name}: then its real outcome, in the same place`)
    const real = `${want.status} afterAbort: ${want.content}`
    t.match(events[0], /^error: aborted/)
    t.same(events.slice(1), late ? ['close', real] : [real, 'close'], `${name}: a second result event${late ? ', after close' : ''}`)
  }
})

t.test('a tool that never settles after the abort keeps its error result, unmarked', async (t) => {
  const ac = new AbortController()
  const p = createPresenter({ signal: ac.signal, executeTool: () => new Promise<string>(() => {}) })
  p.on('error', () => {})
  p.write({ op: 'add', index: 0, block: { type: 'tool_use', name: 'read_file', params: {}, partial: false, call_id: 'r', isNativeToolCall: false } })
  await sleep(3)
  ac.abort(new Error('user left'))
  await new Promise((resolve) => p.on('close', resolve))
  await sleep(10)
  t.equal(p.results.length, 1)
  t.equal(p.results[0]!.status, 'error')
  t.match(p.results[0]!.content, /aborted.*user left/)
  t.notOk('afterAbort' in p.results[0]!)
})

t.test('after destroy, no task queued behind a slow cadence update calls a hook', async (t) => {
  // the cadence timer's update runs a slow `say`; a write arrives behind it and waits; the stream
  // is destroyed meanwhile: the waiting write must not present anything once the `say` settles
  let destroyedAt = Infinity
  const late: string[] = []
  let calls = 0
  const p = createPresenter({
    cadenceMs: 30,
    say: (m) => {
      if (performance.now() >= destroyedAt) late.push(m.content)
      if (++calls === 2) return sleep(100).then(() => undefined) // the timer's update is slow
      return undefined
    },
    onToolPartial: () => { if (performance.now() >= destroyedAt) late.push('tool') },
    executeTool: () => '',
  })
  p.on('error', () => {})
  p.write({ op: 'add', index: 0, block: { type: 'text', content: 'a', partial: true } })
  p.write({ op: 'append', index: 0, path: 'content', text: 'b' }) // deferred by the cadence
  await sleep(45) // the timer fired: its slow say is in flight
  t.equal(calls, 2, 'the cadence timer presented the deferred update')
  p.write({ op: 'append', index: 0, path: 'content', text: 'c' }) // waits behind it
  p.destroy()
  destroyedAt = performance.now()
  await sleep(150)
  t.same(late, [], 'no hook after destroy')
})

// `write` presents a record itself when the Writable is idle (no buffer, no callback), and is the
// Writable's own `write` otherwise: the outcome must be a buffered write's in every case.
t.test('write: an idle record is presented at once; cork, callbacks, async hooks and hook writes keep the Writable\'s order and coalescing', async (t) => {
  const add = (content: string) => ({ op: 'add', index: 0, block: { type: 'text', content, partial: true } })
  const app = (text: string) => ({ op: 'append', index: 0, path: 'content', text })

  t.test('idle: presented before write returns, write returns true', async (t) => {
    const says: string[] = []
    const p = createPresenter({ say: (m) => { says.push(m.content) }, executeTool: () => '' })
    t.equal(p.write(add('a')), true)
    t.same(says, ['a'])
    t.equal(p.writableLength, 0)
    p.write(app('b'))
    t.same(says, ['a', 'ab'])
    p.end()
    await once(p, 'finish')
    t.same(says, ['a', 'ab', 'ab'])
  })

  t.test('corked: records wait, then come together (one update)', async (t) => {
    const says: string[] = []
    const p = createPresenter({ say: (m) => { says.push(m.content) }, executeTool: () => '' })
    p.write(add('a'))
    p.cork()
    for (const c of 'bcd') p.write(app(c))
    t.same(says, ['a'], 'nothing presented while corked')
    t.equal(p.writableLength, 3)
    p.uncork()
    t.same(says, ['a', 'abcd'], 'the three appends, one update')
    p.destroy()
  })

  t.test('a callback: the Writable\'s write, the callback after the record was presented', async (t) => {
    const says: string[] = []
    const p = createPresenter({ say: (m) => { says.push(m.content) }, executeTool: () => '' })
    p.write(add('a'))
    const done = new Promise<string[]>((resolve) => p.write(app('b'), () => resolve(says.slice())))
    t.same(await done, ['a', 'ab'])
    p.destroy()
  })

  t.test('an async say: later writes are buffered, counted and coalesced; backpressure holds', async (t) => {
    const says: string[] = []
    let release!: () => void
    const p = createPresenter({
      highWaterMark: 4,
      say: (m) => {
        says.push(m.content)
        if (says.length === 1) return new Promise<void>((r) => { release = r })
      },
      executeTool: () => '',
    })
    t.equal(p.write(add('a')), true, 'the first record went async: its own write still returns true')
    const returns = [...'bcdef'].map((c) => p.write(app(c)))
    t.same(returns, [true, true, true, false, false], 'the buffered records count against highWaterMark')
    t.equal(p.writableLength, 5)
    t.same(says, ['a'])
    const drained = once(p, 'drain')
    release()
    await drained
    t.same(says, ['a', 'abcdef'], 'the five buffered appends, one update')
    t.equal(p.writableLength, 0)
    p.end()
    await once(p, 'finish')
    t.same(says.at(-1), 'abcdef')
  })

  t.test('end() while a record is in flight and others are buffered: all presented, in order, then finish', async (t) => {
    const says: SayMessage[] = []
    let release!: () => void
    const p = createPresenter({
      say: (m) => {
        says.push(m)
        if (says.length === 1) return new Promise<void>((r) => { release = r })
      },
      executeTool: () => '',
    })
    p.write(add('a'))
    p.write(app('b'))
    p.write(app('c'))
    p.end({ op: 'complete', index: 0 })
    let finished = false
    p.on('finish', () => { finished = true })
    await sleep(5)
    t.equal(finished, false, 'the end waits for the record in flight')
    release()
    await once(p, 'finish')
    t.same(says.map((m) => [m.content, m.partial]), [['a', true], ['abc', false]], 'the buffered diffs, one final update')
  })

  t.test('a say that writes into the presenter: its record comes after the one being presented', async (t) => {
    const says: string[] = []
    const p = createPresenter({
      say: (m) => {
        says.push(m.content)
        if (m.content === 'a') t.equal(p.write(app('b')), true)
      },
      executeTool: () => '',
    })
    p.write(add('a'))
    p.write(app('c'))
    p.end()
    await once(p, 'finish')
    t.same(says, ['a', 'ab', 'abc', 'abc'])
    t.same(p.blocks, [{ type: 'text', content: 'abc', partial: false }])
  })

  t.test('a bad record: nothing thrown, the stream fails with ERR_INVALID_DIFF, the blocks stay', async (t) => {
    const p = createPresenter({ say: () => {}, executeTool: () => '' })
    p.write(add('a'))
    const failed = once(p, 'error')
    t.doesNotThrow(() => p.write({ op: 'append', index: 5, path: 'content', text: 'x' }))
    const [err] = await failed
    t.ok(err instanceof TagstreamError)
    t.equal((err as TagstreamError).code, 'ERR_INVALID_DIFF')
    t.same(p.blocks, [{ type: 'text', content: 'a', partial: true }])
    t.equal(p.write(app('b')), false, 'a write after the failure is the Writable\'s (refused)')
  })

  t.test('highWaterMark 1: a record in flight fills the buffer, as in any Writable (write returns false, then drain)', async (t) => {
    const says: string[] = []
    const p = createPresenter({ highWaterMark: 1, say: async (m) => { says.push(m.content); await sleep(1) }, executeTool: () => '' })
    t.equal(p.write(add('a')), false)
    t.same(says, ['a'], 'presented at once (an idle Writable calls _write)')
    await once(p, 'drain')
    t.equal(p.write(app('b')), false)
    await once(p, 'drain')
    t.same(says, ['a', 'ab'])
    p.destroy()
  })

  // `write` remembers that the Writable was idle rather than reading its state on every record:
  // each way the state changes must make it look again
  t.test('after end(): a write is the Writable\'s (write after end), nothing presented', async (t) => {
    const says: string[] = []
    const p = createPresenter({ say: (m) => { says.push(m.content) }, executeTool: () => '' })
    p.write(add('a'))
    p.write(app('b'))
    p.end()
    const failed = once(p, 'error')
    t.equal(p.write(app('c')), false)
    const [err] = await failed
    t.equal((err as { code?: string }).code, 'ERR_STREAM_WRITE_AFTER_END')
    t.same(says, ['a', 'ab', 'ab'], 'the final update of the block, and nothing of the late record')
    t.same(p.blocks, [{ type: 'text', content: 'ab', partial: false }])
  })

  t.test('after destroy(): a write is refused, nothing presented', async (t) => {
    const says: string[] = []
    const p = createPresenter({ say: (m) => { says.push(m.content) }, executeTool: () => '' })
    p.write(add('a'))
    p.write(app('b'))
    p.destroy()
    p.on('error', () => {})
    t.equal(p.write(app('c')), false)
    await once(p, 'close')
    t.same(says, ['a', 'ab'])
    t.same(p.blocks, [{ type: 'text', content: 'ab', partial: true }])
  })

  t.test('a write with a callback between direct ones: order and outcome unchanged', async (t) => {
    const says: string[] = []
    const p = createPresenter({ say: (m) => { says.push(m.content) }, executeTool: () => '' })
    p.write(add('a'))
    const cb = new Promise<void>((resolve) => p.write(app('b'), () => resolve()))
    p.write(app('c'))
    await cb
    p.write(app('d'))
    p.end()
    await once(p, 'finish')
    t.same(says, ['a', 'ab', 'abc', 'abcd', 'abcd'])
  })
})
