/**
 * `tagstream record -o log.jsonl`: stdin to stdout unchanged, and a chunk log of what passed,
 * with the time of each chunk, for `replay` later.
 */
import { createWriteStream } from 'node:fs'
import { once } from 'node:events'
import { flag, parseCommand, str, UsageError } from './args.js'

/** Help of `record`. */
export const recordHelp = `Usage: tagstream record -o LOG.jsonl

Copies stdin to stdout unchanged while writing a chunk log: a first line {"meta":{…}}, then
one {"t": milliseconds since the start, "text": "…"} per chunk read. 'tagstream replay'
plays it back at the recorded pace (--speed 1) or as fast as possible (--speed 0).
If stdout's reader goes away (| head), recording goes on to the end of stdin.

Options:
  -o, --output FILE        the chunk log to write (required; replaced if it exists)
  -h, --help               this help

Example:
  my-agent --stream | tagstream record -o run.jsonl | tagstream parse
`

/** Waits for a writable to drain, or for it to fail or close. */
async function drained(w: NodeJS.WritableStream): Promise<void> {
  await once(w as unknown as NodeJS.EventEmitter, 'drain')
}

/** Runs `record`. */
export async function recordCommandMain(argv: string[]): Promise<void> {
  const p = parseCommand('record', argv, { output: { type: 'string', short: 'o' } })
  if (flag(p, 'help')) {
    process.stdout.write(recordHelp)
    return
  }
  const file = str(p, 'output')
  if (file === undefined) throw new UsageError('-o LOG.jsonl is required', 'record')
  if (p.positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(p.positionals[0])}`, 'record')
  const start = performance.now()
  const log = createWriteStream(file)
  await once(log, 'open')
  let stdoutGone = false
  let stdoutError: Error | undefined
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') stdoutError ??= err // reported once the log is complete
    stdoutGone = true
    process.stdout.emit('drain') // release a writer waiting on it
  })
  const meta = { meta: { source: 'tagstream record', recordedAt: new Date().toISOString() } }
  log.write(JSON.stringify(meta) + '\n')
  const decoder = new TextDecoder('utf-8')
  const put = async (text: string, t: number): Promise<void> => {
    if (text.length > 0 && !log.write(JSON.stringify({ t, text }) + '\n')) await drained(log)
  }
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    const t = Math.round(performance.now() - start)
    if (!stdoutGone && !process.stdout.write(chunk)) await drained(process.stdout)
    await put(decoder.decode(chunk, { stream: true }), t)
  }
  await put(decoder.decode(), Math.round(performance.now() - start))
  log.end()
  await once(log, 'finish')
  if (stdoutError !== undefined) throw stdoutError
}
