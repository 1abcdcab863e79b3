// Issue 17: after an interrupt (a tool used with parallelToolCalls off, or a rejection), every
// tool call the BlockParser had parsed gets a result, whatever the streams buffered (SPEC 7.3,
// 7.4): the Presenter reads the diffs already produced (its own buffer and the parser's readable
// side), records `skipped` for each tool in them, then emits `ready` and stops.
import t from 'tap'
import fc from 'fast-check'
import { PassThrough, Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import {
  createBlockParser, createPresenter, InterruptError, cleanDisplayText,
  type BlockParser, type Presenter, type ToolResult, type ToolUseBlock, type SayMessage,
} from '../lib/index.js'
import { call, chunksOf, counter, cutsUpTo, fixedChunks, soup } from './helpers/arb.js'

const READ = '<read_file><path>a</path></read_file>'
const LIST = '<list_files><path>.</path></list_files>'
const SEARCH = '<search_files><path>.</path><regex>x</regex></search_files>'
const USED = 'a tool was already used in this message'
const REJECTED = 'a previous tool was rejected'

const FILLER = ' and then some more words'.repeat(41) // 1 KiB: the source's own buffer holds 16

/** A source that sends `chunks`, then (if `more`) 1 KiB of filler text at a time, up to `limit` chunks in all. */
function source(chunks: readonly string[], more: boolean, limit = 50_000): Readable & { produced: number } {
  let i = 0
  const src = new Readable({
    read() {
      if (i < chunks.length) this.push(chunks[i++])
      else if (more && src.produced < limit) this.push(FILLER)
      else this.push(null)
      src.produced++
    },
  }) as Readable & { produced: number }
  src.produced = 0
  return src
}

interface Run {
  results: ToolResult[]
  ran: string[]
  said: SayMessage[]
  events: string[]
  err: unknown
  parser: BlockParser
  presenter: Presenter
  src: Readable & { produced: number }
}

async function run(chunks: readonly string[], opts: { approve: boolean; hwm?: number; more: boolean; parallel?: boolean }): Promise<Run> {
  const ran: string[] = []
  const said: SayMessage[] = []
  const events: string[] = []
  const src = source(chunks, opts.more)
  const parser = createBlockParser({ idGenerator: counter('id'), ...(opts.hwm === undefined ? {} : { highWaterMark: opts.hwm, writableHighWaterMark: opts.hwm }) })
  const presenter = createPresenter({
    ...(opts.hwm === undefined ? {} : { highWaterMark: opts.hwm }),
    parallelToolCalls: opts.parallel ?? false,
    say: (m) => { said.push(m) },
    executeTool: async (b: ToolUseBlock) => {
      ran.push(b.name)
      await sleep(5) // the person thinks: the streams fill up meanwhile
      return opts.approve ? `${b.name} done` : { content: 'The user denied this operation.', rejected: true }
    },
  })
  presenter.on('interrupt', () => events.push('interrupt'))
  presenter.on('ready', (r: ToolResult[]) => events.push(`ready ${r.length}`))
  const err = await pipeline(src, parser, presenter).then(() => null, (e: unknown) => e)
  events.push(err === null ? 'resolved' : err instanceof InterruptError ? 'InterruptError' : 'error')
  return { results: presenter.results, ran, said, events, err, parser, presenter, src }
}

/** What every buffer setting must give for a message whose calls all arrived before the interrupt. */
function expected(names: string[], approve: boolean): ToolResult[] {
  return names.map((name, i) => {
    const call_id = `id${i + 1}`
    if (i === 0) return approve ? { call_id, name, content: `${name} done`, status: 'ok' } : { call_id, name, content: 'The user denied this operation.', status: 'rejected' }
    return { call_id, name, content: `Tool [${name}] was not executed: ${approve ? USED : REJECTED}${approve ? ' (only one tool may be used per message; assess its result before using the next one)' : ''}.`, status: 'skipped' }
  })
}

const MESSAGES: [string, string, string[]][] = [
  ['two calls', READ + LIST, ['read_file', 'list_files']],
  ['three calls, text between', `Reading. ${READ}\nThen listing. ${LIST} and searching ${SEARCH} done.`, ['read_file', 'list_files', 'search_files']],
]

for (const [label, message, names] of MESSAGES) {
  for (const approve of [true, false]) {
    t.test(`one chunk, ${label}, approval ${approve ? 'yes' : 'no'}: every later call is skipped, whatever the highWaterMarks`, async (t) => {
      const want = expected(names, approve)
      for (const hwm of [undefined, 1, 2]) {
        for (const more of [false, true]) {
          const name = `hwm ${hwm ?? 'default'}, ${more ? 'input still coming' : 'input ended'}`
          const r = await run([message], { approve, hwm, more })
          t.same(r.results, want, `${name}: results`)
          t.same(r.ran, [names[0]], `${name}: only the first tool ran`)
          t.notOk(r.said.some((m) => /Then listing|done\./.test(m.content)), `${name}: text after the tool is not shown`)
          t.same(r.events.slice(0, 2), ['interrupt', `ready ${names.length}`], `${name}: interrupt, then ready with every result`)
          if (more) {
            t.equal(r.events[2], 'InterruptError', `${name}: the input was cut short`)
            t.ok(r.src.destroyed, `${name}: the source was destroyed`)
            t.ok(r.src.produced < 200, `${name}: the source stopped (${r.src.produced} chunks)`)
          }
        }
      }
    })
  }
}

t.test('one chunk, parallelToolCalls on, the second call rejected: the third is skipped whatever the highWaterMarks', async (t) => {
  const message = READ + LIST + SEARCH
  for (const hwm of [undefined, 1]) {
    const ran: string[] = []
    const parser = createBlockParser({ idGenerator: counter('id'), ...(hwm === undefined ? {} : { highWaterMark: hwm, writableHighWaterMark: hwm }) })
    const presenter = createPresenter({
      ...(hwm === undefined ? {} : { highWaterMark: hwm }),
      parallelToolCalls: true,
      executeTool: async (b) => {
        ran.push(b.name)
        await sleep(2)
        return b.name === 'list_files' ? { content: 'no', rejected: true } : 'ok'
      },
    })
    await pipeline(source([message], true), parser, presenter).catch(() => {})
    t.same(ran, ['read_file', 'list_files'])
    t.same(presenter.results.map((r) => [r.call_id, r.status]), [['id1', 'ok'], ['id2', 'rejected'], ['id3', 'skipped']], `hwm ${hwm ?? 'default'}`)
    t.match(presenter.results[2]!.content, REJECTED)
  }
})

t.test('streamed in small chunks: every result after the first is skipped, in order, for every call parsed before the interrupt', async (t) => {
  const message = `Reading. ${READ}\nThen ${LIST} and ${SEARCH} and ${READ}.`
  const names = ['read_file', 'list_files', 'search_files', 'read_file']
  for (const size of [1, 3, 7, 16]) {
    for (const hwm of [undefined, 1]) {
      for (const approve of [true, false]) {
        const name = `${size}-byte chunks, hwm ${hwm ?? 'default'}, approval ${approve ? 'yes' : 'no'}`
        let parsedAtInterrupt: string[] = []
        const chunks = fixedChunks(message, size)
        const ran: string[] = []
        const parser = createBlockParser({ idGenerator: counter('id'), ...(hwm === undefined ? {} : { highWaterMark: hwm, writableHighWaterMark: hwm }) })
        const presenter = createPresenter({
          ...(hwm === undefined ? {} : { highWaterMark: hwm }),
          executeTool: async (b) => {
            ran.push(b.name)
            await sleep(3)
            return approve ? 'done' : { content: 'denied', rejected: true }
          },
        })
        presenter.on('interrupt', () => {
          parsedAtInterrupt = parser.blocks.filter((b): b is ToolUseBlock => b.type === 'tool_use').map((b) => b.call_id)
        })
        await pipeline(source(chunks, true), parser, presenter).catch(() => {})
        t.same(ran, ['read_file'], `${name}: no second tool runs`)
        const results = presenter.results
        t.equal(results[0]?.status, approve ? 'ok' : 'rejected', `${name}: the first`)
        t.ok(results.slice(1).every((r) => r.status === 'skipped'), `${name}: the rest skipped`)
        t.same(results.map((r) => r.name), names.slice(0, results.length), `${name}: in order`)
        t.same(results.map((r) => r.call_id), parsedAtInterrupt, `${name}: one result for each call the parser had parsed at the interrupt`)
        // the parser stopped at the interrupt: what it holds now is what it had then
        const tools = parser.blocks.filter((b): b is ToolUseBlock => b.type === 'tool_use').map((b) => b.call_id)
        t.same(tools, parsedAtInterrupt, `${name}: the parser parsed nothing after the interrupt`)
      }
    }
  }
})

t.test('a partial tool call already parsed at the interrupt gets its skipped result too', async (t) => {
  // the second call is cut in the middle of its parameter: the parser has a partial block
  const first = READ + '<list_files><path>sr'
  const r = await run([first], { approve: true, more: true })
  t.same(r.results.map((x) => [x.name, x.status]), [['read_file', 'ok'], ['list_files', 'skipped']])
  t.equal(r.parser.blocks[1]?.partial, true, 'it was still partial')
})

t.test('the input had ended and was all parsed: the drain reads up to its end, and the pipeline resolves', async (t) => {
  const presenter = createPresenter({
    highWaterMark: 1,
    executeTool: async () => {
      await sleep(20) // every chunk arrives and the source ends meanwhile
      return 'ok'
    },
  })
  const ready: number[] = []
  presenter.on('ready', (r: ToolResult[]) => ready.push(r.length))
  await pipeline(Readable.from([READ, ' text ', LIST, ' more ', SEARCH]), createBlockParser(), presenter)
  t.same(presenter.results.map((r) => r.status), ['ok', 'skipped', 'skipped'])
  t.same(ready, [3])
  t.ok(presenter.writableFinished)
})

t.test('an upstream that is not a BlockParser cannot be stopped: the Presenter reads only what it already holds', async (t) => {
  const parser = createBlockParser()
  const presenter = createPresenter({ executeTool: async () => { await sleep(5); return 'ok' } })
  const err = await pipeline(source([READ + LIST], true), parser, new PassThrough({ objectMode: true }), presenter).then(() => null, (e: unknown) => e)
  t.ok(err instanceof InterruptError)
  t.equal(presenter.results[0]?.status, 'ok')
  t.ok(presenter.results.slice(1).every((r) => r.status === 'skipped'), 'whatever it read is skipped')
})

t.test('backpressure during approval is kept: the parser is not stopped before the interrupt', async (t) => {
  let producedAtStart = 0
  let src!: Readable & { produced: number }
  const presenter = createPresenter({
    executeTool: async () => {
      await sleep(30)
      producedAtStart = src.produced
      await sleep(60)
      return 'ok'
    },
  })
  src = source([READ + LIST], true)
  await pipeline(src, createBlockParser(), presenter).catch(() => {})
  t.ok(producedAtStart > 1, 'the source produced while the tool waited (buffers filled)')
  t.ok(src.produced <= producedAtStart + 2, `and (almost) nothing more during the rest of the wait: ${producedAtStart} then ${src.produced}`)
  t.same(presenter.results.map((r) => r.status), ['ok', 'skipped'])
})

t.test('a text block that cleans to nothing is never shown (the original says "")', async (t) => {
  for (const text of ['<thinking></thinking>', '<', ' <thinking>\n</thinking> ']) {
    const said: SayMessage[] = []
    const presenter = createPresenter({ say: (m) => { said.push(m) }, executeTool: () => '' })
    await pipeline(Readable.from([text]), createBlockParser(), presenter)
    t.same(said, [], JSON.stringify(text))
  }
  const said: SayMessage[] = []
  const presenter = createPresenter({ say: (m) => { said.push(m) }, executeTool: () => '' })
  await pipeline(Readable.from(['<thinking>', '</thinking>', ' then words']), createBlockParser(), presenter)
  t.same(said.at(-1), { type: 'text', content: cleanDisplayText('<thinking></thinking> then words', false), partial: false }, 'a block that later has text is shown as usual')
})

t.test('the parser unpiped in the middle of the drain: the drain ends with what the presenter holds, no hang', async (t) => {
  for (const delay of ['sync', 'tick', 'immediate'] as const) {
    const parser = createBlockParser({ highWaterMark: 1 })
    const presenter = createPresenter({ highWaterMark: 1, executeTool: async () => { await sleep(5); return 'ok' } })
    presenter.on('interrupt', () => {
      const go = () => parser.unpipe(presenter)
      if (delay === 'sync') go() // before the drain starts: only the presenter's own buffer counts
      else if (delay === 'tick') process.nextTick(go)
      else setImmediate(go)
    })
    const src = source([READ + LIST + SEARCH + LIST], true)
    const done = pipeline(src, parser, presenter).then(() => 'resolved', (e: unknown) => (e instanceof InterruptError ? 'InterruptError' : e))
    const outcome = await Promise.race([done, sleep(2000).then(() => 'hang')])
    t.equal(outcome, 'InterruptError', `${delay}: the presenter stops`)
    t.equal(presenter.results[0]?.status, 'ok', delay)
    t.ok(presenter.results.slice(1).every((r) => r.status === 'skipped'), `${delay}: the rest skipped`)
    if (outcome === 'hang') {
      presenter.destroy()
      src.destroy()
    }
  }
})

t.test('a parser that emits snapshots: the drained snapshots give the same skipped results', async (t) => {
  for (const hwm of [undefined, 1]) {
    const parser = createBlockParser({ emit: 'snapshots', idGenerator: counter('id'), ...(hwm === undefined ? {} : { highWaterMark: hwm }) })
    const presenter = createPresenter({ ...(hwm === undefined ? {} : { highWaterMark: hwm }), executeTool: async () => { await sleep(3); return 'ok' } })
    // in 5-byte chunks, each chunk a snapshot: several are buffered when the tool returns
    await pipeline(source(fixedChunks(READ + LIST + SEARCH, 5), true), parser, presenter).catch(() => {})
    const parsed = parser.blocks.filter((b): b is ToolUseBlock => b.type === 'tool_use').map((b) => b.call_id)
    t.same(presenter.results.map((r) => r.call_id), parsed, `hwm ${hwm ?? 'default'}: one result per parsed call`)
    t.same(presenter.results.map((r) => r.status), ['ok', ...parsed.slice(1).map(() => 'skipped')])
  }
})

t.test('written by hand: the drain reads what was buffered, up to a message marker', async (t) => {
  const tool = (index: number, name: string) => ({ op: 'add', index, block: { type: 'tool_use', name, params: {}, partial: false, call_id: `c${index}`, isNativeToolCall: false } })
  const p = createPresenter({ executeTool: async () => { await sleep(5); return 'ok' } })
  const errors: unknown[] = []
  p.on('error', (e) => errors.push(e))
  p.write(tool(0, 'read_file'))
  p.write(tool(1, 'list_files'))
  p.write({ op: 'end', id: 'm1' }) // ends the stopped message: the rest is not read
  p.write(tool(0, 'search_files'))
  await new Promise((resolve) => p.on('close', resolve))
  t.same(p.results.map((r) => [r.name, r.status]), [['read_file', 'ok'], ['list_files', 'skipped']])
  t.ok(errors[0] instanceof InterruptError)
})

t.test('random messages, cuts and buffers: after an interrupt, one result per tool call the parser had parsed, the first run and the rest skipped (property)', async (t) => {
  const message = fc.array(fc.oneof(soup, call, fc.constantFrom(READ, LIST, SEARCH)), { minLength: 1, maxLength: 6 }).map((a) => a.join(''))
  await fc.assert(fc.asyncProperty(
    message, cutsUpTo(400), fc.constantFrom(undefined, 1, 2, 16), fc.boolean(), fc.boolean(), fc.constantFrom('immediate', 'sleep'),
    async (text, cuts, hwm, approve, more, wait) => {
      const ran: string[] = []
      const parser = createBlockParser({ idGenerator: counter('id'), ...(hwm === undefined ? {} : { highWaterMark: hwm, writableHighWaterMark: hwm }) })
      let interrupted = false
      const presenter = createPresenter({
        ...(hwm === undefined ? {} : { highWaterMark: hwm }),
        executeTool: async (b) => {
          ran.push(b.call_id)
          await (wait === 'sleep' ? sleep(1) : new Promise((resolve) => setImmediate(resolve)))
          return approve ? 'done' : { content: 'no', rejected: true }
        },
      })
      presenter.on('interrupt', () => { interrupted = true })
      // more: 300 KiB of filler, several times what the buffers hold
      await pipeline(source(chunksOf(text, cuts), more, 300), parser, presenter).catch((e: unknown) => {
        if (!(e instanceof InterruptError)) throw e
      })
      if (!interrupted) return true // no complete tool call reached: nothing to skip
      const tools = parser.blocks.filter((b): b is ToolUseBlock => b.type === 'tool_use').map((b) => b.call_id)
      const results = presenter.results
      return ran.length === 1
        && results.length === tools.length
        && results.every((r, i) => r.call_id === tools[i])
        && results[0]!.call_id === ran[0]
        && results[0]!.status === (approve ? 'ok' : 'rejected')
        && results.slice(1).every((r) => r.status === 'skipped')
    },
  ), { numRuns: 200 })
})
