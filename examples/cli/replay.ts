/**
 * `tagstream replay <file>`: a recorded conversation (chunk log, Cline history, SSE capture) to
 * NDJSON diffs framed per assistant turn, or to a live terminal view.
 */
import { LOG_FORMATS, pace, readLogBatches, ReplayDiffer, TagstreamError, type DiffRecord, type LogFormat } from 'tagstream'
import { choice, flag, num, parseCommand, UsageError } from './args.js'
import { InputError, LineWriter, openInput, printWarning } from './io.js'
import { parserFlags, parserFlagsHelp, readIds, readParserFlags, toParseOptions } from './parse-options.js'
import { withProgress, wantProgress } from './progress.js'
import { recordLine } from './ndjson.js'
import { FinalTurns, SnapshotTurns } from './final.js'
import { makeStyle, TerminalRenderer, wantColor } from './render.js'

/** Help of `replay`. */
export const replayHelp = `Usage: tagstream replay [options] FILE

Replays the assistant turns of a recorded conversation through the parser. FILE (or - for
stdin) is a chunk log (JSONL, as written by 'tagstream record'), a Cline task history
(api_conversation_history.json), or an SSE capture of an OpenAI chat-completions or Anthropic
messages stream; the format is detected from the first bytes.

Output: one JSON record per line, each turn framed by {"op":"message","id":"turn-N"} and
{"op":"end","id":"turn-N"}. Provider reasoning (Anthropic thinking, a history's thinking
parts) becomes a "reasoning" block. Native tool calls (OpenAI tool_calls, Anthropic tool_use
blocks, a history's tool_use parts) become tool_use blocks with "isNativeToolCall":true and
the provider's call id (whatever --ids says), their string arguments growing by appends; a
call whose arguments never form a JSON object ends with "truncated":true (and an
invalid-tool-arguments diagnostic with --option diagnostics). The same file and options
give the same bytes.

Options:
  --format F               chunklog, cline, openai or anthropic (default: detected)
  --render                 a live terminal view instead of NDJSON
  --final                  one line per turn instead of diffs: {"id","meta","blocks"}, the
                           turn's final blocks
  --snapshots              the turn's whole block array after each chunk that changed it,
                           instead of diffs (between the same message/end markers)
  --speed N                N x the recorded pace; 0 = as fast as possible (default: 1 when
                           stdout is a terminal and FILE a file; 0 otherwise, so that a live
                           stream on stdin is not slowed). Histories and SSE captures have
                           no timings: their chunks are paced 30 ms apart.
  --on-error fail|skip     a malformed line or event: fail naming it (default), or warn and
                           skip it (broken JSON syntax in a history is fatal either way)
  --ids counter|nanoid     call ids: call_1, call_2, … across the file (default), or random
  --color, --no-color      colours in --render (default: on a terminal without NO_COLOR)
  --no-progress            no progress bar (shown on stderr for files over 1 MB when stderr
                           is a terminal and stdout is not)
${parserFlagsHelp}
  -h, --help               this help

Examples:
  tagstream replay examples/logs/cline_task_history.json --render --speed 2
  tagstream replay capture.sse | jq -c 'select(.op == "add")'
  tagstream replay history.json --final | jq -c '[.blocks[] | select(.type == "tool_use") | .name]'
`

/** Runs `replay`. */
export async function replayCommandMain(argv: string[]): Promise<void> {
  const p = parseCommand('replay', argv, {
    ...parserFlags,
    format: { type: 'string' },
    render: { type: 'boolean' },
    final: { type: 'boolean' },
    snapshots: { type: 'boolean' },
    speed: { type: 'string' },
    'on-error': { type: 'string' },
    color: { type: 'boolean' },
    'no-color': { type: 'boolean' },
    'no-progress': { type: 'boolean' },
  })
  if (flag(p, 'help')) {
    process.stdout.write(replayHelp)
    return
  }
  if (p.positionals.length !== 1) throw new UsageError(p.positionals.length === 0 ? 'expected a FILE to replay (- for stdin)' : `expected one FILE, got ${p.positionals.length}`, 'replay')
  const format = choice<LogFormat>(p, 'format', LOG_FORMATS)
  const onError = choice(p, 'on-error', ['fail', 'skip'] as const, 'fail')
  const tty = process.stdout.isTTY === true
  const speed = num(p, 'speed', tty && p.positionals[0] !== '-' ? 1 : 0, 0)
  const options = toParseOptions(readParserFlags(p), readIds(p, 'counter'))
  const modes = (['render', 'final', 'snapshots'] as const).filter((m) => flag(p, m))
  if (modes.length > 1) throw new UsageError(`--${modes[0]} and --${modes[1]} exclude each other`, 'replay')
  const colorFlag = flag(p, 'color') ? true : flag(p, 'no-color') ? false : undefined
  const input = openInput(p.positionals[0])
  const source = input.size !== undefined && wantProgress(input.size, flag(p, 'no-progress'))
    ? withProgress(input.stream, input.size)
    : input.stream
  const batches = pace(readLogBatches(source, {
    file: input.name,
    onError,
    onWarning: printWarning,
    ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }),
    ...(format === undefined ? {} : { format }),
  }), { speed })
  const differ = new ReplayDiffer({ ...options, file: input.name })
  const out = new LineWriter(process.stdout, tty || speed > 0)
  let emit: (r: DiffRecord) => void
  let afterChunk: (() => void) | undefined
  if (flag(p, 'render')) {
    const view = new TerminalRenderer((s) => out.text(s), makeStyle(wantColor(process.stdout, colorFlag)))
    emit = (r) => view.push(r)
  } else if (flag(p, 'final')) {
    const turns = new FinalTurns((line) => out.text(line + '\n'))
    emit = (r) => turns.push(r)
  } else if (flag(p, 'snapshots')) {
    const turns = new SnapshotTurns((line) => out.text(line + '\n'))
    emit = (r) => turns.push(r)
    afterChunk = () => turns.flush()
  } else {
    emit = (r) => out.text(recordLine(r) + '\n')
  }
  try {
    for await (const batch of batches) {
      for (const e of batch) {
        for (const r of differ.push(e)) emit(r)
        afterChunk?.()
        // after each event, not each batch: one event's output can be large (a snapshot of
        // many blocks), so a batch's output is written and waited for as it grows
        const wait = out.settle()
        if (wait !== undefined) await wait
      }
    }
    for (const r of differ.end()) emit(r)
    afterChunk?.()
  } catch (err) {
    throw named(err, input.name)
  } finally {
    await out.flush()
  }
}

/**
 * An error that would name neither the file nor a place in it (a RangeError of the runtime, a
 * bug) gets the file's name: every failure of a replay says which input it was about.
 */
function named(err: unknown, file: string): unknown {
  if (err instanceof TagstreamError || err instanceof UsageError || err instanceof InputError) return err
  const e = err as NodeJS.ErrnoException
  if (e instanceof Error && e.code === undefined) return new InputError(`${file}: ${e.message}`)
  return err
}
