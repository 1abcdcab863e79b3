/**
 * `tagstream present [file]`: the Presenter demo (examples/present.ts) on a model's text or on
 * each assistant turn of a log: text shown as it streams, each tool call approved (y/n) and run
 * by a dry-run executor.
 */
import { ReadStream } from 'node:tty'
import { LOG_FORMATS, sniffLog, pace, readLog, replayDiffs, diffTurns, type LogFormat } from 'tagstream'
import { choice, flag, num, parseCommand, UsageError } from './args.js'
import { openInput, printWarning } from './io.js'
import { parserFlags, parserFlagsHelp, readIds, readParserFlags, toParseOptions } from './parse-options.js'
import { makeStyle, wantColor } from './render.js'

import { answerSource, presentDemo } from '../present.js'

/** Help of `present`. */
export const presentHelp = `Usage: tagstream present [options] [FILE]

The Presenter demo: shows a model's text as it streams and runs its tool calls one at a time
through a dry-run executor (nothing is executed; each call says what it would do), asking
y/n before each call. FILE (or stdin) is plain model text, or a log of any
format 'replay' reads, presented one assistant turn after another (provider reasoning
is shown dimmed, after "thinking:"; native tool calls are run like tag calls, marked
"native"; one whose arguments are incomplete is never run).

Answers are read from the terminal; when FILE is given they may also come from stdin
(printf 'y\\nn\\n' | tagstream present reply.txt).

Options:
  -y, --yes                approve every call without asking
  --format F               text, chunklog, cline, openai or anthropic (default: detected)
  --speed N                pace of a log: N x recorded (default 1 on a terminal, else 0)
  --color, --no-color      colours (default: on a terminal without NO_COLOR)
  --ids counter|nanoid     call ids (default nanoid)
${parserFlagsHelp}
  -h, --help               this help
`

/** Runs `present`. */
export async function presentCommandMain(argv: string[]): Promise<void> {
  const p = parseCommand('present', argv, {
    ...parserFlags,
    yes: { type: 'boolean', short: 'y' },
    format: { type: 'string' },
    speed: { type: 'string' },
    color: { type: 'boolean' },
    'no-color': { type: 'boolean' },
  })
  if (flag(p, 'help')) {
    process.stdout.write(presentHelp)
    return
  }
  if (p.positionals.length > 1) throw new UsageError(`expected at most one FILE, got ${p.positionals.length}`, 'present')
  const format = choice<LogFormat | 'text'>(p, 'format', ['text', ...LOG_FORMATS])
  const speed = num(p, 'speed', process.stdout.isTTY === true ? 1 : 0, 0)
  const autoApprove = flag(p, 'yes')
  const color = wantColor(process.stdout, flag(p, 'color') ? true : flag(p, 'no-color') ? false : undefined)
  const parse = toParseOptions(readParserFlags(p), readIds(p, 'nanoid'))
  const input = openInput(p.positionals[0])
  const ttyIn = autoApprove ? undefined : answerSource(input.stream === process.stdin)
  if (!autoApprove && ttyIn === undefined) throw new UsageError('no terminal to ask for approval: pass --yes, or give the text as FILE and the answers on stdin', 'present')
  const st = makeStyle(color)
  try {
    const sniffed = format === undefined ? await sniffLog(input.stream) : { format: undefined, source: input.stream }
    const source = sniffed.source
    const logFormat = format === 'text' ? undefined : format ?? sniffed.format
    if (logFormat === undefined) {
      await presentDemo({ input: source, autoApprove, color, out: process.stdout, ...(ttyIn === undefined ? {} : { ttyIn }), parse })
      return
    }
    const events = pace(readLog(source, { file: input.name, format: logFormat, onWarning: printWarning }), { speed })
    for await (const turn of diffTurns(replayDiffs(events, parse))) {
      process.stdout.write(st.dim(`── ${turn.id} ${'─'.repeat(30)}`) + '\n')
      await presentDemo({ diffs: turn.diffs, autoApprove, color, out: process.stdout, ...(ttyIn === undefined ? {} : { ttyIn }) })
      process.stdout.write('\n')
    }
  } finally {
    if (ttyIn !== undefined && ttyIn !== process.stdin) (ttyIn as ReadStream).destroy()
  }
}

