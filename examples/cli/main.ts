#!/usr/bin/env node
/**
 * `tagstream`: the examples CLI. One module per subcommand; this one dispatches and turns
 * failures into exit codes (0 ok, 1 bad input, 2 usage) without stack traces.
 */
import { UsageError } from './args.js'
import { quietOnEpipe, reportFailure } from './io.js'

const help = `Usage: tagstream <command> [options]

Streams for agents whose model writes tool calls as XML-like tags (the Cline protocol).

Commands:
  parse [FILE]        a model's text (file or stdin) to NDJSON block diffs
  replay FILE         a recorded conversation (chunk log, Cline history, OpenAI or Anthropic
                      SSE capture) to NDJSON diffs per turn, or a live view (--render)
  record -o LOG       stdin to stdout unchanged, recording a chunk log with timings
  present [FILE]      the Presenter demo: text shown, tool calls approved (y/n) and dry-run
  stats FILE...       turns, tool calls, cut-off calls, unknown tags and parse speed of logs

Run 'tagstream <command> --help' for a command's options.
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

async function main(argv: string[]): Promise<void> {
  const [name, ...rest] = argv
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    if (name === 'help' && rest[0] !== undefined && rest[0] in commands) return (await commands[rest[0]]!())(['--help'])
    process.stdout.write(help)
    if (name === undefined) process.exitCode = 2
    return
  }
  const load = Object.hasOwn(commands, name) ? commands[name] : undefined
  if (load === undefined) throw new UsageError(`unknown command ${JSON.stringify(name)} (parse, replay, record, present, stats)`)
  if (name !== 'record') quietOnEpipe(process.stdout) // record keeps recording when its reader leaves
  await (await load())(rest)
}

/** Exits once stdout has taken everything written to it (a pipe may still hold some). */
function exitWhenFlushed(): void {
  process.stdout.write('', () => process.exit())
}

main(process.argv.slice(2)).then(exitWhenFlushed, (err: unknown) => {
  reportFailure(err)
  exitWhenFlushed()
})
