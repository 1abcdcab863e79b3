// Runs the `tagstream` CLI for the tests: in-process through its main(argv, io) (a fake stdin,
// captured stdout and stderr, the exit code returned), or as a child process of the BUILT bin
// for what only a real process shows (shebang, exit codes, pipes, EPIPE, worker threads).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { Readable, Writable } from 'node:stream'
import { main } from '../../examples/cli/main.js'

/** What a run of the CLI gave. */
export interface Run { code: number | null; stdout: string; stderr: string }

/** The built bin; CI builds before the tests (npm test runs npm run build). */
export const CLI = 'dist/examples/cli/main.js'

/** A writable that keeps what it is given, like a pipe that is never full. */
class Capture extends Writable {
  readonly chunks: Buffer[] = []
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.chunks.push(chunk)
    cb()
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8')
  }
}

/**
 * stdin as a pipe gives it: the data, then the end, which is seen by a read, which a stream
 * paused by its consumer does not make (the present command pauses stdin between questions and
 * listens for the end only while it waits for an answer).
 */
class PipeLikeStdin extends Readable {
  private sent = false
  private held = false

  constructor(private readonly input: Buffer) {
    super()
  }

  override pause(): this {
    this.held = true
    return super.pause()
  }

  override resume(): this {
    this.held = false
    return super.resume()
  }

  override _read(): void {
    if (!this.sent) {
      this.sent = true
      if (this.input.length > 0) {
        this.push(this.input)
        return
      }
    }
    const end = (): void => {
      if (this.held) this.once('resume', end)
      else this.push(null)
    }
    setImmediate(end)
  }
}

// in-process runs swap the process's standard streams: one at a time, in call order
let queue: Promise<unknown> = Promise.resolve()

/** Runs the CLI in this process; `input` is its stdin (empty when absent). */
export function runCli(args: string[], input?: string | Buffer): Promise<Run> {
  const run = queue.then(async (): Promise<Run> => {
    const stdin = new PipeLikeStdin(typeof input === 'string' ? Buffer.from(input) : input ?? Buffer.alloc(0))
    const stdout = new Capture()
    const stderr = new Capture()
    const code = await main(args, { stdin, stdout, stderr })
    return { code, stdout: stdout.text(), stderr: stderr.text() }
  })
  queue = run.catch(() => {})
  return run
}

// children run as a user's would, without tap's process-info hooks and coverage collection
// (which would triple their start-up time)
const childEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_OPTIONS' && k !== 'NODE_V8_COVERAGE' && !k.startsWith('_TAPJS_')))

/** The environment for a child process of the CLI. */
export function cliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...childEnv, NO_COLOR: '', ...extra }
}

/** Starts the built bin as a child process with piped stdio. */
export function spawnCli(args: string[]): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [CLI, ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: cliEnv() })
}

/** Runs the built bin as a child process; `input` is its stdin. */
export function spawnRun(args: string[], input?: string | Buffer): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawnCli(args)
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout.on('data', (b: Buffer) => out.push(b))
    child.stderr.on('data', (b: Buffer) => err.push(b))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }))
    child.stdin.on('error', () => {}) // a command that does not read stdin
    child.stdin.end(input)
  })
}
