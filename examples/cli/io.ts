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
 * Lines to a writable, gathered into 64 KiB writes (one write per record would cost more than
 * the parse) unless `immediate` (a live replay, a terminal). Waits for `drain` when the
 * writable is full, so a slow reader slows the producer instead of filling memory.
 */
export class LineWriter {
  private buf = ''

  constructor(private readonly out: NodeJS.WritableStream, private readonly immediate: boolean) {}

  /** Queues one line; a promise when the caller must wait before the next. */
  line(s: string): Promise<void> | undefined {
    this.buf += s + '\n'
    return this.settle()
  }

  /** Queues text as it is (no newline). */
  text(s: string): void {
    this.buf += s
  }

  /** Writes if it is time to; a promise when the caller must wait. */
  settle(): Promise<void> | undefined {
    if (this.immediate || this.buf.length >= 65536) return this.flush()
    return undefined
  }

  /** Writes what is queued. */
  flush(): Promise<void> | undefined {
    if (this.buf.length === 0) return undefined
    const ok = this.out.write(this.buf)
    this.buf = ''
    return ok ? undefined : once(this.out as unknown as NodeJS.EventEmitter, 'drain').then(() => undefined)
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
    reportFailure(err)
    process.exit(1)
  })
}

/** Prints a failure for people and sets the exit code: 2 for usage, 1 for bad input. */
export function reportFailure(err: unknown): void {
  if (err instanceof UsageError) {
    const cmd = err.command === undefined ? '' : ` ${err.command}`
    process.stderr.write(`tagstream${cmd}: ${err.message}\nTry 'tagstream${cmd} --help'.\n`)
    process.exitCode = 2
    return
  }
  if (err instanceof TagstreamError) {
    process.stderr.write(`tagstream: ${err.message}\n`)
    process.exitCode = err.code === 'ERR_USAGE' || err.code === 'ERR_INVALID_OPTION' ? 2 : 1
    return
  }
  if (err instanceof InputError) {
    process.stderr.write(`tagstream: ${err.message}\n`)
    process.exitCode = 1
    return
  }
  const e = err as NodeJS.ErrnoException
  const what = e?.code !== undefined && e.path !== undefined ? `cannot read ${e.path}: ${describeFsError(e)}` : String(e?.message ?? e)
  process.stderr.write(`tagstream: ${what}\n`)
  if (process.env.TAGSTREAM_DEBUG !== undefined && e?.stack !== undefined) process.stderr.write(e.stack + '\n')
  process.exitCode = 1
}
