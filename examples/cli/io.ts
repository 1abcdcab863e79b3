/**
 * Input files, buffered line output with backpressure, and how failures become exit codes.
 */
import { createReadStream, statSync } from 'node:fs'
import { once } from 'node:events'
import type { Readable } from 'node:stream'
import { TagstreamError } from 'tagstream'
import { UsageError } from './args.js'

/** A file or stdin, opened for reading, with its size when known (for progress). */
export interface Input {
  name: string
  stream: Readable
  size: number | undefined
}

/** Opens `file` (`-` or nothing: stdin). A missing or unreadable file is bad input (exit 1). */
export function openInput(file: string | undefined): Input {
  if (file === undefined || file === '-') return { name: '<stdin>', stream: process.stdin, size: undefined }
  let size: number
  try {
    const st = statSync(file)
    if (st.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' })
    size = st.size
  } catch (err) {
    throw new InputError(`cannot read ${file}: ${describeFsError(err)}`)
  }
  return { name: file, stream: createReadStream(file), size }
}

function describeFsError(err: unknown): string {
  const e = err as NodeJS.ErrnoException
  switch (e.code) {
    case 'ENOENT': return 'no such file'
    case 'EISDIR': return 'is a directory'
    case 'EACCES': return 'permission denied'
    default: return e.message
  }
}

/** Bad input found by the CLI itself (exit 1). */
export class InputError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'InputError'
  }
}

/**
 * Lines to a writable, gathered into writes of up to 64 KiB (one write per record would cost
 * more than the parse), yet never held while the process waits: whatever is queued is written
 * once the synchronous work of the current input chunk is done (a `setImmediate`, which runs
 * only when the event loop is about to poll for more input), the way `grep --line-buffered`
 * behaves. A fast input still fills whole writes; a slow one sees each line as it is made.
 * `immediate` (a live replay, a terminal) writes at every `settle()`.
 *
 * Memory is bounded: the queue is written as soon as it reaches 64 KiB, so it holds at most
 * that plus one record; and when the writable is full, `line()` and `settle()` return a promise
 * of its `drain`, so a slow reader slows the producer instead of filling memory.
 */
export class LineWriter {
  private buf = ''
  private idleFlush: NodeJS.Immediate | undefined
  private draining: Promise<void> | undefined

  constructor(private readonly out: NodeJS.WritableStream, private readonly immediate: boolean, private readonly limit = 65536) {}

  /** Queues one line; a promise when the caller must wait before the next. */
  line(s: string): Promise<void> | undefined {
    this.buf += s + '\n'
    return this.settle()
  }

  /**
   * Queues text as it is (no newline). Written at once past the limit; the caller that cannot
   * wait here waits at its next `settle()`.
   */
  text(s: string): void {
    this.buf += s
    if (this.buf.length >= this.limit) void this.flush()
    else this.scheduleIdleFlush()
  }

  /** Writes if it is time to; a promise when the caller must wait. */
  settle(): Promise<void> | undefined {
    if (this.immediate || this.buf.length >= this.limit) return this.flush()
    this.scheduleIdleFlush()
    return this.draining
  }

  /** Writes what is queued; a promise when the writable asks to wait for `drain`. */
  flush(): Promise<void> | undefined {
    if (this.buf.length === 0) return this.draining
    const ok = this.out.write(this.buf)
    this.buf = ''
    if (!ok && this.draining === undefined) {
      const drained = once(this.out as unknown as NodeJS.EventEmitter, 'drain').then(() => {
        this.draining = undefined
      })
      // a flush nobody awaits (the idle one) must not turn a failed writable into an unhandled
      // rejection; whoever awaits `draining` still sees the error
      drained.catch(() => {})
      this.draining = drained
    }
    return this.draining
  }

  private scheduleIdleFlush(): void {
    if (this.idleFlush !== undefined || this.buf.length === 0) return
    this.idleFlush = setImmediate(() => {
      this.idleFlush = undefined
      void this.flush()
    })
  }
}

/** Prints a skipped problem; the run goes on. */
export function printWarning(w: TagstreamError | string): void {
  process.stderr.write(`tagstream: warning: ${typeof w === 'string' ? w : w.message}\n`)
}

/** Ends quietly when the reader of stdout went away (`| head`): that is not a failure. */
export function quietOnEpipe(stream: NodeJS.WritableStream): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0)
    process.exit(reportFailure(err))
  })
}

/** Prints a failure for people; its exit code: 2 for usage, 1 for bad input. */
export function reportFailure(err: unknown): number {
  if (err instanceof UsageError) {
    const cmd = err.command === undefined ? '' : ` ${err.command}`
    process.stderr.write(`tagstream${cmd}: ${err.message}\nTry 'tagstream${cmd} --help'.\n`)
    return 2
  }
  if (err instanceof TagstreamError) {
    process.stderr.write(`tagstream: ${err.message}\n`)
    return err.code === 'ERR_USAGE' || err.code === 'ERR_INVALID_OPTION' ? 2 : 1
  }
  if (err instanceof InputError) {
    process.stderr.write(`tagstream: ${err.message}\n`)
    return 1
  }
  const e = err as NodeJS.ErrnoException
  const what = e?.code !== undefined && e.path !== undefined ? `cannot read ${e.path}: ${describeFsError(e)}` : String(e?.message ?? e)
  process.stderr.write(`tagstream: ${what}\n`)
  if (process.env.TAGSTREAM_DEBUG !== undefined && e?.stack !== undefined) process.stderr.write(e.stack + '\n')
  return 1
}

/** The standard streams of one run of the CLI. */
export interface CliIO {
  stdin?: NodeJS.ReadableStream
  stdout?: NodeJS.WritableStream
  stderr?: NodeJS.WritableStream
}

const STDIO = ['stdin', 'stdout', 'stderr'] as const

/**
 * Runs `run` with `process.stdin`, `stdout` and `stderr` replaced by the streams of `io` (the
 * others left as they are), and puts the real ones back after. Every module of the CLI, and the
 * examples it calls, then reads and writes where the caller says without each taking the
 * streams as a parameter. One run at a time: the streams are the process's.
 */
export async function withStdio<T>(io: CliIO, run: () => Promise<T>): Promise<T> {
  const saved = STDIO.map((name) => Object.getOwnPropertyDescriptor(process, name))
  for (const name of STDIO) {
    const stream = io[name]
    if (stream !== undefined) Object.defineProperty(process, name, { configurable: true, enumerable: true, get: () => stream })
  }
  try {
    return await run()
  } finally {
    STDIO.forEach((name, i) => {
      if (saved[i] !== undefined) Object.defineProperty(process, name, saved[i])
    })
  }
}
