// Issue 12, "output that follows the input": a command that reads a stream writes each line as
// soon as it has nothing more to read, instead of gathering 64 KiB first. Checked on the built
// bin through real pipes fed with pauses: each line must arrive while stdin is still open. And
// the line writer itself: batches while busy, flushes when idle, bounded, waits for drain.
import t from 'tap'
import { Writable } from 'node:stream'
import { setImmediate as tick } from 'node:timers/promises'
import { readFileSync } from 'node:fs'
import type { ChildProcessWithoutNullStreams } from 'node:child_process'
import { LineWriter } from '../examples/cli/io.js'
import { applyDiff, counterIds, parseAssistantMessage, type Block, type BlockDiff } from '../lib/index.js'
import { spawnCli } from './helpers/cli.js'

/** Lines of a child's stdout, awaited one by one while its stdin stays open. */
class Lines {
  private readonly got: string[] = []
  readonly all: string[] = []
  private rest = ''
  private waiter: (() => void) | undefined
  ended = false

  constructor(child: ChildProcessWithoutNullStreams) {
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (s: string) => {
      const parts = (this.rest + s).split('\n')
      this.rest = parts.pop()!
      this.got.push(...parts)
      this.all.push(...parts)
      this.waiter?.()
    })
    child.stdout.on('end', () => {
      this.ended = true
      this.waiter?.()
    })
  }

  /**
   * Waits until a line matches `re`; undefined if the output ends first or nothing comes for
   * `patience` ms (a guard so that a CLI that holds its output fails instead of hanging: the
   * pause in the input lasts until the line arrives, so the line never races the input).
   */
  async until(re: RegExp, patience = 30_000): Promise<string | undefined> {
    const deadline = Date.now() + patience
    for (;;) {
      const i = this.got.findIndex((l) => re.test(l))
      if (i >= 0) return this.got.splice(0, i + 1).at(-1)
      if (this.ended || Date.now() > deadline) return undefined
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, deadline - Date.now()))
        this.waiter = () => {
          clearTimeout(timer)
          this.waiter = undefined
          resolve()
        }
      })
    }
  }
}

const exited = (child: ChildProcessWithoutNullStreams): Promise<number | null> => new Promise((resolve) => child.on('close', (code) => resolve(code)))

t.test('parse: each diff line arrives while stdin is still open (the issue\'s reproduction)', async (t) => {
  const child = spawnCli(['parse', '--ids', 'counter'])
  const lines = new Lines(child)
  const pieces = ['I will', ' read it.\n<read_file>\n<pa', 'th>src</path>\n</read_file>']
  child.stdin.write(pieces[0])
  const first = await lines.until(/"op":"add"/)
  t.match(first, /"type":"text","content":"I will"/, 'the first line, before more input')
  if (first === undefined) return void child.kill() // held output: the rest would wait as long
  child.stdin.write(pieces[1])
  t.match(await lines.until(/"tool_use"/), /"name":"read_file"/, 'the tool call\'s add, while its tag is still open')
  child.stdin.write(pieces[2])
  t.match(await lines.until(/"params\.path"/), /"value":"src"/, 'its parameter, before stdin ends')
  t.notOk(lines.ended, 'all the while, the output was open')
  child.stdin.end()
  t.equal(await exited(child), 0)
  // and the diffs, cut where the input was, add up to what the whole input gives
  const blocks = lines.all.map((l) => JSON.parse(l) as BlockDiff).reduce<Block[]>((b, d) => applyDiff(b, d), [])
  t.same(blocks, parseAssistantMessage(pieces.join(''), { final: true, idGenerator: counterIds() }))
})

t.test('replay -: a chunk log on stdin is replayed as it arrives', async (t) => {
  const log = readFileSync('examples/logs/chunk_log.jsonl', 'utf8').trimEnd().split('\n')
  const child = spawnCli(['replay', '-', '--format', 'chunklog'])
  const lines = new Lines(child)
  child.stdin.write(log.slice(0, 3).join('\n') + '\n')
  const first = await lines.until(/"op":"message"/)
  t.match(first, /"id":"turn-1"/, 'the turn begins while stdin is open')
  if (first === undefined) return void child.kill()
  t.ok(await lines.until(/"op":"add"/), 'and its first block')
  child.stdin.write(log.slice(3).join('\n') + '\n')
  t.ok(await lines.until(/"op":"complete"/), 'the rest follows the rest')
  t.notOk(lines.ended)
  child.stdin.end()
  t.ok(await lines.until(/"op":"end"/), 'the turn ends with the input')
  t.equal(await exited(child), 0)
})

t.test('replay - with no --format: an SSE stream is detected from its first event and replayed as it arrives', async (t) => {
  // what `curl -sN … | tagstream replay -` gets: a few short events, far under 4 KiB, then a pause
  const sse = readFileSync('examples/logs/openai_chat.sse', 'utf8').split('\n\n').filter((e) => e.trim() !== '')
  const child = spawnCli(['replay', '-'])
  const lines = new Lines(child)
  child.stdin.write(sse.slice(0, 3).join('\n\n') + '\n\n')
  const first = await lines.until(/"op":"message"/)
  t.match(first, /"id":"turn-1"/, 'the format is told and the turn begins while stdin is open')
  if (first === undefined) return void child.kill()
  t.ok(await lines.until(/"op":"add"/), 'and its first block')
  t.notOk(lines.ended)
  child.stdin.end(sse.slice(3).join('\n\n') + '\n\n')
  t.ok(await lines.until(/"op":"end"/), 'the turn ends with the input')
  t.equal(await exited(child), 0)
})

t.test('record: stdin reaches stdout as it arrives', async (t) => {
  const dir = t.testdir()
  const child = spawnCli(['record', '-o', `${dir}/rec.jsonl`])
  const lines = new Lines(child)
  child.stdin.write('first line\n')
  t.equal(await lines.until(/first/), 'first line')
  child.stdin.write('second line\n')
  t.equal(await lines.until(/second/), 'second line')
  child.stdin.end()
  t.equal(await exited(child), 0)
})

/** A writable that records each write; `full` makes write() ask for a drain. */
class Sink extends Writable {
  readonly writes: string[] = []
  full = false
  constructor() {
    super({ decodeStrings: false })
  }
  override write(chunk: unknown, ...rest: unknown[]): boolean {
    this.writes.push(String(chunk))
    void rest
    return !this.full
  }
}

t.test('LineWriter: gathers while busy, writes when the loop goes idle', async (t) => {
  const sink = new Sink()
  const w = new LineWriter(sink, false)
  for (let i = 0; i < 100; i++) t.equal(w.line(`r${i}`), undefined, 'no wait while there is room')
  w.text('tail')
  t.same(sink.writes, [], 'nothing written during the synchronous work')
  await tick()
  t.equal(sink.writes.length, 1, 'one write once the work is done')
  t.equal(sink.writes[0], Array.from({ length: 100 }, (_, i) => `r${i}\n`).join('') + 'tail')
  await tick()
  t.equal(sink.writes.length, 1, 'nothing more to write')
  t.equal(w.settle(), undefined)
  await tick()
  t.equal(sink.writes.length, 1, 'an empty queue writes nothing')
})

t.test('LineWriter: bounded by the limit plus one record, and waits for drain', async (t) => {
  const sink = new Sink()
  const w = new LineWriter(sink, false, 1000)
  for (let i = 0; i < 99; i++) w.line('x'.repeat(9))
  t.same(sink.writes, [], 'under the limit: held')
  w.line('x'.repeat(9))
  t.equal(sink.writes.length, 1, 'at the limit: written at once')
  t.equal(sink.writes[0]!.length, 1000)
  const huge = 'h'.repeat(50_000)
  w.text(huge)
  t.equal(sink.writes.length, 2, 'a record past the limit goes out with no wait for idle')
  t.equal(sink.writes[1], huge)
  sink.full = true
  w.text('a'.repeat(2000))
  t.equal(sink.writes.length, 3, 'written, and the writable now asks to wait')
  const wait = w.settle()
  t.type(wait, Promise, 'settle() then returns the drain to wait for')
  t.equal(w.line('b'), wait, 'so does line()')
  let drained = false
  void wait!.then(() => (drained = true))
  await tick()
  t.notOk(drained, 'not before the drain')
  sink.full = false
  sink.emit('drain')
  await wait
  t.ok(drained)
  t.equal(w.settle(), undefined, 'no wait after the drain')
  await w.flush()
  t.equal(sink.writes.at(-1), 'b\n')
})

t.test('LineWriter: a writable that fails while an idle flush waits is not an unhandled rejection', async (t) => {
  const sink = new Sink()
  sink.full = true
  const w = new LineWriter(sink, false)
  w.line('a')
  await tick()
  t.equal(sink.writes.length, 1, 'the idle flush wrote')
  const wait = w.settle()
  t.type(wait, Promise)
  sink.emit('error', new Error('EPIPE'))
  await t.rejects(wait!, /EPIPE/, 'whoever waits sees the error')
})

t.test('LineWriter: immediate writes at every settle', async (t) => {
  const sink = new Sink()
  const w = new LineWriter(sink, true)
  w.line('one')
  t.same(sink.writes, ['one\n'])
  w.text('two')
  t.same(sink.writes, ['one\n'], 'text() waits for the next settle')
  w.settle()
  t.same(sink.writes, ['one\n', 'two'])
})
