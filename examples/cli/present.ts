/**
 * `tagstream present [file]`: the Presenter demo (examples/present.ts) on a model's text or on
 * each assistant turn of a log: text shown as it streams, each tool call approved (y/n) and run
 * by a dry-run executor.
 */
import { ReadStream } from 'node:tty'
import { LOG_FORMATS, sniffLog, pace, readLog, replayDiffs, type DiffRecord, type LogFormat } from 'tagstream'
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
    for await (const turn of turnsOf(replayDiffs(events, parse))) {
      process.stdout.write(st.dim(`── ${turn.id} ${'─'.repeat(30)}`) + '\n')
      await presentDemo({ diffs: turn.diffs, autoApprove, color, out: process.stdout, ...(ttyIn === undefined ? {} : { ttyIn }) })
      process.stdout.write('\n')
    }
  } finally {
    if (ttyIn !== undefined && ttyIn !== process.stdin) (ttyIn as ReadStream).destroy()
  }
}

/**
 * The replay's diff records cut into turns, each the diffs `replay` prints for it without the
 * message/end markers: the Presenter takes a turn as a whole input, so an interrupt stops
 * reading it, and the rest of that turn is passed over. Provider reasoning arrives as reasoning
 * blocks (shown dimmed) and native tool calls as tool blocks. Nothing is buffered: a turn must
 * be read or abandoned before the next is asked for.
 */
async function* turnsOf(records: AsyncIterable<DiffRecord>): AsyncGenerator<{ id: string; diffs: AsyncIterable<DiffRecord> }, void, undefined> {
  const it = records[Symbol.asyncIterator]()
  let pending: DiffRecord | undefined // a message marker read by a turn's diffs
  let inTurn = false
  const next = async (): Promise<DiffRecord | undefined> => {
    if (pending !== undefined) {
      const r = pending
      pending = undefined
      return r
    }
    const r = await it.next()
    return r.done === true ? undefined : r.value
  }
  try {
    for (;;) {
      let r = await next()
      while (inTurn && r !== undefined && r.op !== 'message') r = await next() // the rest of an abandoned turn
      inTurn = false
      if (r === undefined) return
      if (r.op !== 'message') continue
      inTurn = true
      const diffs = async function* (): AsyncGenerator<DiffRecord, void, undefined> {
        while (inTurn) {
          const d = await next()
          if (d === undefined || d.op === 'end' || d.op === 'message') {
            if (d?.op === 'message') pending = d
            inTurn = false
            return
          }
          yield d
        }
      }
      yield { id: r.id, diffs: diffs() }
    }
  } finally {
    await it.return?.()
  }
}
