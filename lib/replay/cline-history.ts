/**
 * Cline task histories (`api_conversation_history.json`): a JSON array of `{role, content}`.
 * Read with stream-json's tokenizer, strings unpacked: a message's text is replayed as it is
 * read, so a 1 GB history, or one 200 MB message, needs the memory of the parse of one turn,
 * not of the file or of the message's JSON.
 * @module
 */
import { jsonParser, type Token } from 'stream-json/core/parser.js'
import { TagstreamError } from '../errors.js'
import { ChunkSplitter, Reporter, SYNTHETIC_INTERVAL_MS, describe, type LogReadOptions, type LogSource, type ReplayEvent } from './events.js'
import { decodeText, flatten } from './source.js'
import { SHORT, kindOf, describeValue, SkipFrame, ScalarFrame, TextFrame, ObjectFrame, JsonTextFrame, type Frame } from './json-frames.js'

/** Separates two text parts of one assistant message in the replayed text. */
const PART_SEPARATOR = '\n\n'

/**
 * Text is fed to the tokenizer in pieces cut at line ends and every this many characters of a
 * line: an error names its line and, in a long line, this span of columns.
 */
const PIECE = 8192

/** stream-chain's end-of-input marker (a registered symbol), which the tokenizer also returns for "no tokens". */
const NONE = Symbol.for('object-stream.none')

/** A tool_use part's `id` or `name` longer than this is an error (a cut id would be wrong). */
const MAX_CALL_FIELD = 4096

/**
 * Reads a Cline task history and yields each assistant message as one turn; other roles are
 * passed over. In `content`, `text` parts are the model's text (several are joined with a blank
 * line), `thinking` parts become reasoning chunks, `tool_use` parts (native tool calls, with a
 * complete `input`) become `tool` / `tool_end` events: the `input` is written back as JSON as
 * its tokens are read and replayed in pieces, so a call streams as it did live (SPEC 8a), and
 * the other parts (images, redacted thinking…) are not replayed. Stored text has no timings, so
 * it is cut into word-sized chunks one {@link SYNTHETIC_INTERVAL_MS} apart, the same chunks
 * however the file is read.
 *
 * The text is replayed as it is read: a message's first chunks come out before its end is read,
 * and a history cut short (or broken) yields everything before the cut, then fails. A message or
 * part of the wrong shape fails the read with `ERR_BAD_LOG` naming it (`messages[4]`), or is
 * skipped with a warning (`onError: 'skip'`); invalid JSON names its line and is fatal either
 * way (a JSON document cannot be resynchronised).
 * @example
 * ```ts
 * import { createReadStream } from 'node:fs'
 * import { readClineHistory } from 'tagstream'
 * const file = 'api_conversation_history.json'
 * for await (const e of readClineHistory(createReadStream(file), { file })) console.log(e)
 * ```
 * @group Replay
 */
export function readClineHistory(source: LogSource, options: LogReadOptions = {}): AsyncGenerator<ReplayEvent, void, undefined> {
  return flatten(clineHistoryBatches(source, options))
}

/** The tokens of a history turned into replay events. */
class HistoryReader {
  /** Where events go: the batch being filled. */
  out: ReplayEvent[] = []
  private readonly stack: Frame[] = []
  private turn = 0
  private index = -1
  private top: 'start' | 'array' | 'done' = 'start'

  constructor(readonly report: Reporter) {}

  /** Begins `frame` with the token `first` (a value's first token). */
  push(frame: Frame, first: Token): void {
    this.stack.push(frame)
    if (frame.token(first)) this.stack.pop()
  }

  /** Takes one token. */
  token(t: Token): void {
    const frame = this.stack[this.stack.length - 1]
    if (frame !== undefined) {
      if (frame.token(t)) this.stack.splice(this.stack.indexOf(frame), 1)
      return
    }
    if (this.top === 'start') {
      if (t.name !== 'startArray') {
        const kind = kindOf(t)
        throw this.report.error('line 1', `a Cline history is a JSON array of messages, got ${kind === null ? t.name : describeValue(kind, '', kind === 'string' || kind === 'number')}`, { line: 1 })
      }
      this.top = 'array'
      return
    }
    if (t.name === 'endArray') {
      this.top = 'done'
      return
    }
    const index = ++this.index
    const where = `messages[${index}]`
    if (t.name === 'startObject') {
      this.push(new MessageFrame(this, index, where), t)
      return
    }
    this.push(new ScalarFrame(SHORT, null, (kind, text, cut) => {
      this.report.bad(where, `expected an object {role, content}, got ${describeValue(kind, text, cut)}`, { index })
    }), t)
  }

  /** The text part being read, if any: what it has read is handed on when the input is cut. */
  reading: Turn | null = null

  /** The input is cut or broken: the words of the part being read come out, then the error. */
  cut(): void {
    this.reading?.end()
  }

  /** The next turn's id. */
  nextTurn(): string {
    return `turn-${++this.turn}`
  }
}

/** What a message's events go through: one text or reasoning value at a time. */
class Turn {
  private t = 0
  private hadText = false
  private splitter: ChunkSplitter | null = null
  private kind: 'text' | 'reasoning' = 'text'

  constructor(private readonly reader: HistoryReader, private readonly emit: (e: ReplayEvent) => void) {}

  /** A text or thinking part begins. */
  begin(kind: 'text' | 'reasoning'): void {
    this.reader.reading = this
    this.kind = kind
    this.splitter = new ChunkSplitter((text) => {
      this.emit({ type: 'chunk', kind: this.kind, text, t: this.t })
      this.t += SYNTHETIC_INTERVAL_MS
    })
    if (kind === 'text') {
      if (this.hadText) this.splitter.push(PART_SEPARATOR)
      this.hadText = true
    }
  }

  chunk(s: string): void {
    this.splitter!.push(s)
  }

  end(): void {
    this.splitter!.end()
    this.splitter = null
    this.reader.reading = null
  }

  /** A whole part at once (one that had to wait for its type). */
  whole(kind: 'text' | 'reasoning', text: string): void {
    this.begin(kind)
    this.chunk(text)
    this.end()
  }

  /** A native tool call begins: its `tool` event; then its argument JSON through {@link chunk}. */
  toolBegin(key: string, id: string, name: string): void {
    this.reader.reading = this
    this.emit({ type: 'tool', key, id, name, args: '', t: this.t })
    this.t += SYNTHETIC_INTERVAL_MS
    this.splitter = new ChunkSplitter((args) => {
      this.emit({ type: 'tool', key, args, t: this.t })
      this.t += SYNTHETIC_INTERVAL_MS
    })
  }

  /** The call's argument JSON is complete (a cut input ends only the pieces: {@link end}). */
  toolEnd(key: string): void {
    this.end()
    this.emit({ type: 'tool_end', key })
  }
}

/**
 * One message. Its events go out as they are read once its role is known to be `assistant`;
 * when `content` comes before `role` (not what Cline writes, but valid JSON), they wait, bounded
 * by `maxBytes`, until the role says whether they are replayed.
 */
class MessageFrame extends ObjectFrame {
  private role: string | null | undefined // undefined: not seen; null: not a string
  private contentSeen = false
  private id: string | null = null
  private pending: ReplayEvent[] | null = null
  private pendingSize = 0
  private readonly turn: Turn

  constructor(private readonly reader: HistoryReader, private readonly index: number, private readonly where: string) {
    super()
    this.turn = new Turn(reader, (e) => this.emit(e))
  }

  private get report(): Reporter {
    return this.reader.report
  }

  private emit(e: ReplayEvent): void {
    if (this.pending === null) {
      this.reader.out.push(e)
      return
    }
    // text and tool arguments alike wait here: both count toward the bound
    this.pendingSize += e.type === 'chunk' ? e.text.length : e.type === 'tool' ? e.args.length : 0
    if (this.pendingSize > this.report.limit) throw this.report.tooLarge(this.where, 'the content read before "role"', { index: this.index })
    this.pending.push(e)
  }

  /** The message turns out to be replayed: its `message` event, then what waited. */
  private open(): void {
    this.id = this.reader.nextTurn()
    this.reader.out.push({ type: 'message', id: this.id, meta: { index: this.index } })
    if (this.pending !== null) {
      for (const e of this.pending) this.reader.out.push(e)
      this.pending = null
    }
  }

  protected value(key: string, first: Token): void {
    if (key === 'role' && this.role === undefined) {
      this.reader.push(new ScalarFrame(SHORT, null, (kind, text, cut) => {
        if (kind !== 'string') {
          this.role = null
          this.report.bad(this.where, `"role" must be a string, got ${describeValue(kind, text, cut)}`, { index: this.index })
          return
        }
        this.role = text
        if (this.contentSeen && text === 'assistant') this.open()
        else this.pending = null
      }), first)
      return
    }
    if (key === 'content' && !this.contentSeen && this.role !== null && (this.role === undefined || this.role === 'assistant')) {
      this.contentSeen = true
      if (this.role === undefined) this.pending = []
      else this.open()
      const kind = kindOf(first)
      if (kind === 'array') {
        this.reader.push(new PartsFrame(this.reader, this.turn, this.index, this.where), first)
        return
      }
      this.reader.push(new TextFrame(
        () => this.turn.begin('text'),
        (s) => this.turn.chunk(s),
        () => this.turn.end(),
        (d) => this.report.bad(this.where, `"content" must be a string or an array of parts, got ${d}`, { index: this.index }),
      ), first)
      return
    }
    if (key === 'content') this.contentSeen = true
    this.reader.push(new SkipFrame(), first)
  }

  protected end(): void {
    if (this.role === undefined) {
      this.pending = null
      this.report.bad(this.where, '"role" is missing (a message is {"role", "content"})', { index: this.index })
      return
    }
    if (this.role !== 'assistant') return
    if (!this.contentSeen) {
      this.report.bad(this.where, '"content" is missing (a message is {"role", "content"})', { index: this.index })
      return
    }
    this.reader.out.push({ type: 'end', id: this.id! })
  }
}

/** The `content` array of an assistant message. */
class PartsFrame implements Frame {
  private started = false
  private i = -1

  constructor(private readonly reader: HistoryReader, private readonly turn: Turn, private readonly index: number, private readonly where: string) {}

  token(t: Token): boolean {
    if (!this.started) {
      this.started = true
      return false
    }
    if (t.name === 'endArray') return true
    const part = ++this.i
    const where = `${this.where}.content[${part}]`
    if (t.name === 'startObject') {
      this.reader.push(new PartFrame(this.reader, this.turn, where, { index: this.index, part }), t)
      return false
    }
    this.reader.push(new ScalarFrame(SHORT, null, (kind, text, cut) => {
      this.reader.report.bad(where, `expected a part {type, …}, got ${describeValue(kind, text, cut)}`, { index: this.index, part })
    }), t)
    return false
  }
}

/** The field that holds a part's text, by its type. */
function fieldOf(type: string): 'text' | 'thinking' | null {
  return type === 'text' ? 'text' : type === 'thinking' ? 'thinking' : null
}

/** One part: a `text` or `thinking` part is replayed as it is read once its type is known. */
class PartFrame extends ObjectFrame {
  private type: string | null | undefined // undefined: not seen; null: not a string
  /** Values of `text` / `thinking` read before the type was (at most `maxBytes`): text or a description. */
  private readonly waiting = new Map<string, { text: string } | { bad: string }>()
  private got = false
  // a tool_use part: its id and name (a string, or a description of what else they were), and
  // its input: streamed once type, id and name are known, else kept (bounded) until the part ends
  private readonly call = new Map<'id' | 'name', { text: string } | { bad: string }>()
  private input: 'none' | 'streamed' | 'kept' = 'none'
  private kept: string[] = []
  private keptSize = 0

  constructor(private readonly reader: HistoryReader, private readonly turn: Turn, private readonly where: string, private readonly details: Record<string, unknown>) {
    super()
  }

  private get report(): Reporter {
    return this.reader.report
  }

  private needs(field: string, got: string): void {
    this.report.bad(this.where, `a ${String(this.type)} part needs a string "${field}", got ${got}`, this.details)
  }

  protected value(key: string, first: Token): void {
    if (key === 'type' && this.type === undefined) {
      this.reader.push(new ScalarFrame(SHORT, null, (kind, text, cut) => {
        if (kind !== 'string') {
          this.type = null
          this.report.bad(this.where, `"type" must be a string, got ${describeValue(kind, text, cut)}`, this.details)
          return
        }
        this.type = text
      }), first)
      return
    }
    if ((this.type === undefined || this.type === 'tool_use') && (key === 'id' || key === 'name' || key === 'input')) {
      this.toolValue(key, first)
      return
    }
    if ((key !== 'text' && key !== 'thinking') || this.type === null || this.waiting.has(key)) {
      this.reader.push(new SkipFrame(), first)
      return
    }
    if (this.type === undefined) {
      // the type decides whether this is replayed: keep it (bounded) until the part ends
      this.reader.push(new ScalarFrame(this.report.limit, () => {
        throw this.report.tooLarge(this.where, `a "${key}" read before the part's "type"`, this.details)
      }, (kind, text, cut) => {
        this.waiting.set(key, kind === 'string' ? { text } : { bad: describeValue(kind, text, cut) })
      }), first)
      return
    }
    const field = fieldOf(this.type)
    if (field !== key || this.got) {
      this.reader.push(new SkipFrame(), first)
      return
    }
    this.got = true
    const kind = field === 'text' ? 'text' : 'reasoning'
    this.reader.push(new TextFrame(
      () => this.turn.begin(kind),
      (s) => this.turn.chunk(s),
      () => this.turn.end(),
      (d) => this.needs(field, d),
    ), first)
  }

  /** `id`, `name` or `input` of what may be a tool_use part. */
  private toolValue(key: 'id' | 'name' | 'input', first: Token): void {
    if (key !== 'input') {
      if (this.call.has(key)) return this.reader.push(new SkipFrame(), first)
      this.reader.push(new ScalarFrame(MAX_CALL_FIELD, null, (kind, text, cut) => {
        this.call.set(key, kind === 'string' && !cut ? { text } : { bad: describeValue(kind, text, cut) })
      }), first)
      return
    }
    if (this.input !== 'none') return this.reader.push(new SkipFrame(), first)
    const id = this.call.get('id')
    const name = this.call.get('name')
    if (this.type === 'tool_use' && id !== undefined && 'text' in id && name !== undefined && 'text' in name) {
      this.input = 'streamed'
      const key = String(this.details.part)
      this.turn.toolBegin(key, id.text, name.text)
      this.reader.push(new JsonTextFrame((s) => this.turn.chunk(s), () => this.turn.toolEnd(key)), first)
      return
    }
    // the part's type, id or name come after its input (valid JSON, not what Cline writes)
    this.input = 'kept'
    this.reader.push(new JsonTextFrame((s) => {
      this.keptSize += s.length
      if (this.keptSize > this.report.limit) throw this.report.tooLarge(this.where, 'an "input" read before the part\'s "type", "id" and "name"', this.details)
      this.kept.push(s)
    }), first)
  }

  /** The end of a tool_use part: its events if its input had to wait, or what is wrong with it. */
  private endTool(): void {
    const id = this.call.get('id')
    const name = this.call.get('name')
    if (this.input === 'streamed') return
    if (id === undefined || !('text' in id) || name === undefined || !('text' in name) || this.input === 'none') {
      const got = (f: { text: string } | { bad: string } | undefined): string => f === undefined ? 'none' : 'text' in f ? describe(f.text) : f.bad
      this.report.bad(this.where, `a tool_use part needs a string "id", a string "name" and an "input", got id ${got(id)}, name ${got(name)}${this.input === 'none' ? ', no input' : ''}`, this.details)
      return
    }
    const key = String(this.details.part)
    this.turn.toolBegin(key, id.text, name.text)
    for (const s of this.kept) this.turn.chunk(s)
    this.kept = []
    this.turn.toolEnd(key)
  }

  protected end(): void {
    if (this.type === null) return
    if (this.type === undefined) {
      this.report.bad(this.where, 'a part needs a string "type"', this.details)
      return
    }
    if (this.type === 'tool_use') return this.endTool()
    const field = fieldOf(this.type)
    if (field === null || this.got) return
    const w = this.waiting.get(field)
    if (w !== undefined && 'text' in w) {
      this.turn.whole(field === 'text' ? 'text' : 'reasoning', w.text)
      return
    }
    this.needs(field, w?.bad ?? 'none')
  }
}

/**
 * {@link readClineHistory} in batches, one per piece of input read. @internal
 * @group Replay
 */
export async function* clineHistoryBatches(source: LogSource, options: LogReadOptions = {}): AsyncGenerator<ReplayEvent[], void, undefined> {
  const report = new Reporter(options)
  const reader = new HistoryReader(report)
  const tokenize = jsonParser({ packValues: false, streamValues: true })
  let line = 1
  let column = 0 // characters of the line before the piece being read (a history is often one long line)
  let first = true
  const take = (piece: string | symbol): void => {
    let r: unknown
    try {
      r = (tokenize as (s: string | symbol) => unknown)(piece)
    } catch (err) {
      reader.cut()
      const why = (err as Error).message
      if (piece === NONE) throw report.error(`line ${line}`, `invalid JSON: the input ends inside the history, cut short? (${why})`, { line })
      // pieces are cut at fixed columns, so the place named does not depend on how the input came
      const block = Math.floor(column / PIECE) * PIECE
      throw report.error(block === 0 ? `line ${line}` : `line ${line}, columns ${block + 1}-${block + PIECE}`, `invalid JSON (${why})`, { line })
    }
    // the tokenizer gives many(tokens) or none, never one bare token
    if (r !== NONE) for (const t of (r as { values: Token[] }).values) reader.token(t)
  }
  // tokens of a piece the tokenizer rejects are lost with it: small pieces lose little
  const feed = function* (s: string): Generator<ReplayEvent[], void, undefined> {
    let from = 0
    while (from < s.length) {
      const nl = s.indexOf('\n', from)
      const end = Math.min(nl < 0 ? s.length : nl + 1, from + PIECE - (column % PIECE))
      const out: ReplayEvent[] = []
      reader.out = out
      try {
        take(s.slice(from, end))
      } catch (err) {
        if (out.length > 0) yield out
        throw err
      }
      if (s.charCodeAt(end - 1) === 10) {
        line++
        column = 0
      } else {
        column += end - from
      }
      from = end
      if (out.length > 0) yield out
    }
  }
  for await (let s of decodeText(source)) {
    if (first) {
      first = false
      if (s.charCodeAt(0) === 0xfeff) s = s.slice(1)
    }
    yield* feed(s)
  }
  const out: ReplayEvent[] = []
  reader.out = out
  try {
    take(NONE)
  } catch (err) {
    if (out.length > 0) yield out
    if (err instanceof TagstreamError && first) throw report.error('line 1', 'empty input', { line: 1 })
    throw err
  }
  if (out.length > 0) yield out
}
