#!/usr/bin/env node
/**
 * `tagstream`: the examples CLI. One module per subcommand; this one dispatches and turns
 * failures into exit codes (0 ok, 1 bad input, 2 usage) without stack traces.
 */
import { readFileSync, realpathSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { UsageError } from './args.js'
import { quietOnEpipe, reportFailure, withStdio, type CliIO } from './io.js'

const help = `Usage: tagstream <command> [options]

Streams for agents whose model writes tool calls as XML-like tags (the Cline protocol).

Commands:
  parse [FILE]        a model's text (file or stdin) to NDJSON block diffs
  replay FILE         a recorded conversation (chunk log, Cline history, OpenAI or Anthropic
                      SSE capture) to NDJSON diffs per turn, or a live view (--render)
  record -o LOG       stdin to stdout unchanged, recording a chunk log with timings
  present [FILE]      the Presenter demo: text shown, tool calls approved (y/n) and dry-run
  stats FILE...       turns, tool calls, cut-off calls, unknown tags and parse speed of logs;
                      --merge adds up the --json outputs of other runs (one per shard)

Options:
  -v, --version       the version of tagstream
  -h, --help          this help

Run 'tagstream <command> --help' for a command's options.
Output follows the input: a line is written as soon as nothing more is waiting to be read.
Exit codes: 0 success, 1 bad input (the message names the file and line or event), 2 usage.
`

type Command = (argv: string[]) => Promise<void>

const commands: Record<string, () => Promise<Command>> = {
  parse: async () => (await import('./parse.js')).parseCommandMain,
  replay: async () => (await import('./replay.js')).replayCommandMain,
  record: async () => (await import('./record.js')).recordCommandMain,
  present: async () => (await import('./present.js')).presentCommandMain,
  stats: async () => (await import('./stats.js')).statsCommandMain,
}

/**
 * The version in tagstream's package.json, found by walking up from this module: the built bin
 * (dist/examples/cli) and the sources (examples/cli) sit at different depths.
 */
export function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown }
      if (pkg.name === 'tagstream' && typeof pkg.version === 'string') return pkg.version
    } catch {
      // no package.json here (or not ours): look further up
    }
    const up = dirname(dir)
    if (up === dir) throw new Error('cannot find the package.json of tagstream')
    dir = up
  }
}

async function dispatch(argv: string[]): Promise<number> {
  const [name, ...rest] = argv
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    if (name === 'help' && rest[0] !== undefined && Object.hasOwn(commands, rest[0])) {
      await (await commands[rest[0]]!())(['--help'])
      return 0
    }
    process.stdout.write(help)
    return name === undefined ? 2 : 0
  }
  if (name === '--version' || name === '-v') {
    process.stdout.write(packageVersion() + '\n')
    return 0
  }
  const load = Object.hasOwn(commands, name) ? commands[name] : undefined
  if (load === undefined) throw new UsageError(`unknown command ${JSON.stringify(name)} (parse, replay, record, present, stats)`)
  if (name !== 'record') quietOnEpipe(process.stdout) // record keeps recording when its reader leaves
  await (await load())(rest)
  return 0
}

/**
 * Runs the CLI on `argv` (without node and the script) and resolves with its exit code; it
 * never exits the process (a closed stdout on `| head` aside). `io` replaces the standard
 * streams for the run, which is how the tests run commands in-process.
 */
export async function main(argv: string[], io: CliIO = {}): Promise<number> {
  return withStdio(io, async () => {
    try {
      return await dispatch(argv)
    } catch (err) {
      return reportFailure(err)
    }
  })
}

/** Whether this module is the process's entry point (also through npm's bin symlink). */
function isEntry(): boolean {
  const entry = process.argv[1]
  if (entry === undefined) return false
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url))
  } catch {
    return false
  }
}

if (isEntry()) {
  const code = await main(process.argv.slice(2))
  // exit once stdout has taken everything written to it (a pipe may still hold some)
  process.stdout.write('', () => process.exit(code))
}
