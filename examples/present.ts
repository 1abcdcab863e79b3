#!/usr/bin/env node
/**
 * The Presenter demo: a model's reply streamed through `BlockParser → Presenter` with a terminal
 * UI. Text is printed as it streams; before each tool call the demo asks y/n on the terminal
 * (or approves everything with --yes, for pipes); a dry-run executor prints what the call would
 * do and returns that as the tool's result. Nothing is ever executed.
 *
 *   node dist/examples/present.js [FILE] [--yes] [--color | --no-color]
 *   printf 'y\nn\n' | node dist/examples/present.js examples/messages/refactor.txt
 *
 * FILE (or stdin) is the model's text. Answers come from stdin when FILE is given, else from
 * the terminal. As in Cline, one tool runs per message (the rest of the message is then not
 * read), and a refused call ends the message.
 *
 * Also importable: `presentDemo(opts)` runs one message and resolves with the tool results (the
 * CLI's `tagstream present` uses it for each turn of a log, given as diffs so that the
 * provider's reasoning is shown too).
 */
import { createReadStream, openSync } from 'node:fs'
import { ReadStream } from 'node:tty'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { pathToFileURL } from 'node:url'
import {
  clineDialect, createBlockParser, createPresenter, InterruptError,
  type DiffRecord, type InterruptInfo, type SayMessage, type StreamParseOptions, type ToolResult, type ToolUseBlock,
} from 'tagstream'
import { makeStyle, wantColor } from './cli/render.js'
import { quietOnEpipe } from './cli/io.js'

/** Options of {@link presentDemo}. */
export interface PresentDemoOptions {
  /** The model's text: a byte or string stream, or an async iterable of chunks. */
  input?: NodeJS.ReadableStream | AsyncIterable<string | Uint8Array>
  /**
   * Instead of `input`, the message already as diffs (a replay's, say, where reasoning comes as
   * its own blocks): they go straight to the Presenter.
   */
  diffs?: AsyncIterable<DiffRecord> | Iterable<DiffRecord>
  /** Approve every call without asking. */
  autoApprove: boolean
  /** ANSI colours. */
  color: boolean
  /** Where the UI goes. */
  out: NodeJS.WritableStream
  /** Where y/n answers come from (needed unless `autoApprove`); it is paused, never closed. */
  ttyIn?: NodeJS.ReadableStream
  /** BlockParser options (profile, dialect, idGenerator, …). */
  parse?: StreamParseOptions
}

/**
 * Where y/n answers come from: stdin when the text does not (a FILE was given), else the
 * terminal itself; `undefined` when there is none.
 */
export function answerSource(textFromStdin: boolean): NodeJS.ReadableStream | undefined {
  if (!textFromStdin) return process.stdin
  try {
    return new ReadStream(openSync('/dev/tty', 'r'))
  } catch {
    return undefined
  }
}

function preview(value: string, max = 100): string {
  const lines = value.split('\n')
  const first = lines[0]!.length > max ? lines[0]!.slice(0, max) + '…' : lines[0]!
  return lines.length > 1 ? `${first} … (${lines.length} lines)` : first
}

// ---- answers -----------------------------------------------------------------------------------

/**
 * Lines from the answer stream, read only while a question waits. One reader per stream, kept
 * across calls: with piped answers (`printf 'y\nn\n' |`) one read may bring several lines, and
 * the next message's questions must still get them.
 */
class LineReader {
  private lines: string[] = []
  private rest = ''
  private ended = false
  private waiter: ((line: string | null) => void) | null = null
  private readonly onData = (buf: Buffer | string): void => {
    this.rest += typeof buf === 'string' ? buf : buf.toString('utf8')
    let nl: number
    while ((nl = this.rest.indexOf('\n')) >= 0) {
      this.lines.push(this.rest.slice(0, nl).replace(/\r$/, ''))
      this.rest = this.rest.slice(nl + 1)
    }
    this.deliver()
  }
  private readonly onEnd = (): void => {
    this.ended = true
    if (this.rest.length > 0) this.lines.push(this.rest)
    this.rest = ''
    this.deliver()
  }

  constructor(private readonly input: NodeJS.ReadableStream) {
    // listened to for good: an 'end' that comes while no question waits must not be missed
    input.once('end', this.onEnd)
  }

  /** The next line, or `null` once the stream has ended. */
  next(): Promise<string | null> {
    if (this.lines.length > 0) return Promise.resolve(this.lines.shift()!)
    if (this.ended) return Promise.resolve(null)
    return new Promise((resolve) => {
      this.waiter = resolve
      this.input.on('data', this.onData)
      this.input.resume()
    })
  }

  private deliver(): void {
    if (this.waiter === null || (this.lines.length === 0 && !this.ended)) return
    const w = this.waiter
    this.waiter = null
    // stop reading between questions: a terminal left flowing would keep the process alive
    this.input.off('data', this.onData)
    this.input.pause()
    w(this.lines.shift() ?? null)
  }
}

const readers = new WeakMap<NodeJS.ReadableStream, LineReader>()

function lineReader(input: NodeJS.ReadableStream): LineReader {
  let r = readers.get(input)
  if (r === undefined) readers.set(input, (r = new LineReader(input)))
  return r
}

// ---- dry run -------------------------------------------------------------------------------------

/** What a tool call would do, in words: the demo's stand-in for running it. */
export function describeCall(b: ToolUseBlock): string {
  const p = b.params
  switch (b.name) {
    case 'read_file': return `would read ${p.path ?? '(no path)'}`
    case 'write_to_file': return `would write ${(p.content ?? '').split('\n').length} lines (${Buffer.byteLength(p.content ?? '')} bytes) to ${p.path ?? '(no path)'}`
    case 'replace_in_file': return `would apply ${(p.diff ?? '').split(/^-{3,} SEARCH/m).length - 1 || (p.diff ?? '').split('SEARCH').length - 1} search/replace block(s) to ${p.path ?? '(no path)'}`
    case 'execute_command': return `would run \`${p.command ?? ''}\`${p.requires_approval === 'true' ? ' (the model asks for approval)' : ''}`
    case 'list_files': return `would list ${p.path ?? '.'}${p.recursive === 'true' ? ' recursively' : ''}`
    case 'search_files': return `would search ${p.path ?? '.'} for /${p.regex ?? ''}/${p.file_pattern !== undefined ? ` in ${p.file_pattern}` : ''}`
    case 'list_code_definition_names': return `would list the definitions in ${p.path ?? '.'}`
    case 'ask_followup_question': return `would ask the user: ${preview(p.question ?? '')}`
    case 'attempt_completion': return `would report the task done: ${preview(p.result ?? '')}`
    case 'web_fetch': return `would fetch ${p.url ?? '(no url)'}`
    case 'browser_action': return `would ${p.action ?? 'act'} in the browser${p.url !== undefined ? ` at ${p.url}` : ''}`
    case 'use_mcp_tool': return `would call MCP tool ${p.tool_name ?? '?'} on ${p.server_name ?? '?'}`
    default: {
      const args = Object.entries(p).map(([k, v]) => `${k}=${JSON.stringify(preview(v, 40))}`).join(' ')
      return `would call ${b.name}${args.length > 0 ? ' ' + args : ''}`
    }
  }
}

// ---- the demo ------------------------------------------------------------------------------------

/**
 * Presents one model message on a terminal: text as it streams, a y/n question before each tool
 * call (unless `autoApprove`), a dry run of the approved calls. Resolves with the tool results
 * once the message is done (or was interrupted: one tool per message, or a refusal); rejects on
 * a real error (bad input, a parser limit).
 */
export async function presentDemo(opts: PresentDemoOptions): Promise<ToolResult[]> {
  const { out, autoApprove } = opts
  const st = makeStyle(opts.color)
  const write = (s: string): void => { out.write(s) }
  const answers = opts.ttyIn === undefined ? undefined : lineReader(opts.ttyIn)
  const readOnly = new Set(clineDialect.readOnlyTools)

  // what was printed of the current text block: the UI can only append
  let printed = ''
  let atLineStart = true
  const endLine = (): void => {
    if (!atLineStart) write('\n')
    atLineStart = true
  }
  const say = ({ type, content, partial }: SayMessage): void => {
    const show = type === 'reasoning' ? st.dim : (s: string) => s
    if (content.startsWith(printed)) {
      const more = content.slice(printed.length)
      if (more.length > 0) {
        if (printed.length === 0 && type === 'reasoning') write(st.dim('thinking: '))
        write(show(more))
        atLineStart = more.endsWith('\n')
      }
      printed = content
    } else if (!printed.startsWith(content)) {
      // changed other than by growing (rare): start the block again on a fresh line
      endLine()
      write(show(content))
      atLineStart = content.endsWith('\n') || content.length === 0
      printed = content
    } // else it shrank (a fence opener cut at the end): what is on screen stays
    if (!partial) {
      endLine()
      printed = ''
    }
  }

  const executeTool = async (b: ToolUseBlock): Promise<{ content: string; rejected?: boolean }> => {
    endLine()
    write(`${st.tool('⏺ ' + b.name)}${b.isNativeToolCall ? st.dim(' (native)') : ''} ${st.dim(Object.entries(b.params).map(([k, v]) => `${k}: ${preview(v, 60)}`).join(', '))}\n`)
    let approved = autoApprove
    if (!approved) {
      if (answers === undefined) return { content: 'The user denied this operation (no terminal to ask).', rejected: true }
      write(`  ${st.bold(`Run ${b.name}${readOnly.has(b.name) ? ' (read-only)' : ''}?`)} [y/N] `)
      const line = await answers.next()
      // a terminal echoes what was typed; piped answers are echoed here so the transcript reads well
      if ((opts.ttyIn as { isTTY?: boolean }).isTTY !== true) write(`${line ?? '(no answer)'}\n`)
      approved = line !== null && /^\s*y(es)?\s*$/i.test(line)
    }
    if (!approved) {
      write(`  ${st.warn('✗ denied')}\n`)
      return { content: 'The user denied this operation.', rejected: true }
    }
    const what = describeCall(b)
    write(`  ${st.ok('✓')} ${st.dim('[dry run]')} ${what}\n`)
    return { content: `[dry run] ${what}` }
  }

  const presenter = createPresenter({ say, executeTool, cadenceMs: 16 })
  let interrupt: InterruptInfo | null = null
  presenter.on('interrupt', (i: InterruptInfo) => { interrupt = i })
  try {
    if (opts.diffs !== undefined) await pipeline(Readable.from(opts.diffs), presenter)
    else if (opts.input === undefined) throw new TypeError('presentDemo: give input (text) or diffs')
    else await pipeline(isNodeReadable(opts.input) ? opts.input : Readable.from(opts.input), createBlockParser(opts.parse), presenter)
  } catch (err) {
    // an interrupt is how a message with a tool call normally ends: not a failure
    if (!(err instanceof InterruptError)) throw err
  }
  endLine()
  const results = presenter.results
  const info = interrupt as InterruptInfo | null
  if (info !== null) write(st.dim(info.reason === 'rejected' ? '(message ended: a call was refused)' : '(message ended after its tool call: one tool per message)') + '\n')
  for (const r of results) {
    if (r.status !== 'ok') write(st.dim(`  ${r.name} ${r.call_id}: ${r.status}${r.status === 'error' ? ' — ' + preview(r.content) : ''}`) + '\n')
  }
  return results
}

function isNodeReadable(x: unknown): x is NodeJS.ReadableStream {
  return x !== null && typeof x === 'object' && typeof (x as { pipe?: unknown }).pipe === 'function' && typeof (x as { on?: unknown }).on === 'function'
}

// ---- program ---------------------------------------------------------------------------------------

async function main(argv: string[]): Promise<number> {
  const flags = new Set(argv.filter((a) => a.startsWith('-')))
  const files = argv.filter((a) => !a.startsWith('-'))
  const known = ['--yes', '-y', '--color', '--no-color', '--help', '-h']
  const unknown = [...flags].filter((f) => !known.includes(f))
  if (flags.has('--help') || flags.has('-h') || unknown.length > 0 || files.length > 1) {
    process.stderr.write(`${unknown.length > 0 ? `unknown option ${unknown[0]}\n` : ''}usage: present.js [FILE] [--yes] [--color | --no-color]\n`)
    return flags.has('--help') || flags.has('-h') ? 0 : 2
  }
  const autoApprove = flags.has('--yes') || flags.has('-y')
  const color = wantColor(process.stdout, flags.has('--color') ? true : flags.has('--no-color') ? false : undefined)
  const input = files[0] === undefined ? process.stdin : createReadStream(files[0], { highWaterMark: 64 })
  const ttyIn = autoApprove ? undefined : answerSource(files[0] === undefined)
  if (!autoApprove && ttyIn === undefined) {
    process.stderr.write('no terminal to ask for approval: pass --yes, or give the text as FILE and the answers on stdin\n')
    return 2
  }
  try {
    await presentDemo({ input, autoApprove, color, out: process.stdout, ...(ttyIn === undefined ? {} : { ttyIn }) })
    return 0
  } catch (err) {
    process.stderr.write(`present: ${(err as Error).message}\n`)
    return 1
  } finally {
    if (ttyIn !== undefined && ttyIn !== process.stdin) (ttyIn as ReadStream).destroy()
  }
}

const entry = process.argv[1]
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) {
  quietOnEpipe(process.stdout) // `| head`: the reader went away, not a failure
  process.exitCode = await main(process.argv.slice(2))
}
