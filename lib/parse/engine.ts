/**
 * The parser's state machine. One engine serves both the pure `parseAssistantMessage` (feed the
 * whole text once) and the BlockParser (feed each chunk as it comes): it never re-reads text it
 * has decided, so streaming costs O(new text) per chunk.
 *
 * Tags are found by jumping between `<` positions and reading at most one tag's length past each;
 * the name between the brackets is looked up in a set. A candidate cut by the end of the input is
 * kept aside (`carry`) and read again with the next chunk. Completed blocks are frozen and never
 * touched again (SPEC 3.8); the one open block is rendered on demand.
 * @internal
 * @module
 */
import type { Block, Diagnostic, ToolUseBlock } from '../types.js'
import type { ResolvedOptions } from './options.js'
import { Field, type FieldMark } from './field.js'
import { Rope } from './rope.js'
import { GreedyView, applyGreedy, type GreedyBody } from './greedy.js'
import { tables, looksLikeTool, type TagSet } from './tags.js'

const enum Mode { Text, Tool, Param, Reasoning }

// character codes
const LT = 60 // '<'
const GT = 62 // '>'
const NL = 10 // '\n'
const SPACE = 32
const TAB = 9
const SLASH = 47
const BACKTICK = 96
const isBlank = (c: number): boolean => c === SPACE || c === TAB

/** What the scanner found at a `<`, when not the index of a tag's `>`. */
const NONE = -1
const PARTIAL = -2

/** An inline code span whose closing run does not come within this many characters is literal. */
const MAX_SPAN = 4096
/** Longest unknown tag name that diagnostics wait for. */
const UNKNOWN_MAX = 48
/** Extra room for white space inside brackets with `lenientTags`. */
const LENIENT_SLACK = 16
/** Characters of dropped text quoted in an `ignored-content` diagnostic. */
const SAMPLE = 40

/** `\s` of a `u` regex: what can never be part of a tag name. */
function isSpace(c: number): boolean {
  if (c <= 32) return c === SPACE || (c >= 9 && c <= 13)
  if (c < 0xa0) return false
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 ||
    c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff
}

/**
 * The inside of a lenient tag: blanks, an optional '/', blanks, a name (no white space, '<',
 * '>' or '/'), blanks; lenient white space is spaces and tabs, as a tag never spans lines.
 * Returns slash + name, or null when `raw` has another shape. By hand, in one pass: the
 * equivalent regex (`^[ \t]*(\/?)[ \t]*([^\s<>/]*)[ \t]*$`) backtracks cubically on a run of
 * blanks followed by two words, and a streamed window ending in one ran it on every chunk.
 * @group Parsing
 */
export function lenientInner(raw: string): string | null {
  const n = raw.length
  let i = 0
  while (i < n && isBlank(raw.charCodeAt(i))) i++
  const slash = i < n && raw.charCodeAt(i) === SLASH
  if (slash) {
    i++
    while (i < n && isBlank(raw.charCodeAt(i))) i++
  }
  const from = i
  for (; i < n; i++) {
    const c = raw.charCodeAt(i)
    if (c === LT || c === GT || c === SLASH || isSpace(c)) break
  }
  const to = i
  while (i < n && isBlank(raw.charCodeAt(i))) i++
  if (i < n) return null
  const name = from === 0 && to === n ? raw : raw.slice(from, to)
  return slash ? '/' + name : name
}
const lenientCloses = new Map<string, RegExp>()

/** `< / name >` with any blanks, as a global regex (closeEnd then applies the length limit). */
function lenientClose(want: string): RegExp {
  let re = lenientCloses.get(want)
  if (re === undefined) {
    const name = want.slice(1).replace(/[.*+?^${}()|[\]\\]/gu, '\\$&')
    re = new RegExp(`<[ \\t]*/[ \\t]*${name}[ \\t]*>`, 'g')
    if (lenientCloses.size < 1024) lenientCloses.set(want, re)
  }
  return re
}

function indexOrEnd(w: string, c: string, from: number): number {
  const i = w.indexOf(c, from)
  return i < 0 ? w.length : i
}

/**
 * The field of the open block that is still growing, and how its rendering relates to `core`.
 * @group Parsing
 */
export interface OpenField {
  path: string
  field: Field
  /** Rendered value = field.core + ext. */
  ext: string
}


interface ToolState extends GreedyBody {
  name: string
  call_id: string
  /** What a greedy param shows while the tool streams (`greedyWhileStreaming`). */
  views: GreedyView[]
  /**
   * For a tool with one greedy param (and no entity decoding): that param's opening tag, and
   * the offset of its first occurrence in the body (-1 until found), looked for in each piece
   * of body as it comes (`openSeam`: the body's last characters, for a tag cut between pieces).
   * Searching the whole body at each opening made a tool with many openings quadratic.
   */
  openTag: string | null
  firstOpen: number
  openSeam: string
}

export class Engine {
  readonly done: Block[] = []
  readonly diagnostics: Diagnostic[] = []
  private mode: Mode = Mode.Text
  /** Changes whenever the open block changes shape (mode, param, view), so a stream knows when only the open field grew. */
  shape = 0
  /** Raw text after the last decided position: a tag candidate cut by the end of the input. */
  private carry = ''
  /** Offset in the whole text of the first character of `carry`. */
  private pos = 0
  private text = new Field()
  private tool: ToolState | null = null
  private paramName = ''
  /** Made once per param, not per chunk: they are compared and searched on every chunk. */
  private paramClose = ''
  private paramPath = ''
  private param: Field | null = null
  /** For greedy tools: where the open param's value starts in the body, and where the last closing tag was found in the window. */
  private valueAt = 0
  private closeAt = 0
  /** Where the body of a greedy tool continues in the current window. */
  private bodyFrom = 0
  /** The body's pending range: `runW.slice(runStart, runEnd)` (see bodyTo). */
  private runW: string | null = null
  private runStart = 0
  private runEnd = 0
  /** Where it starts in the current window, for the greedy views. */
  private viewFrom = 0
  private reasoningClose = ''
  private reasoning: Field | null = null
  private ended = false
  // codeFences state (text mode): see scanFenced
  private bol = true
  private fence = 0
  private lineText = false
  private span = 0
  private spanAt = 0
  private heldAt = -1
  /**
   * A held tag's text is shown as text while it is held: pushed to `text` as it comes, with the
   * point to come back to (`heldMark`) and its raw text past the windows it began in
   * (`heldRaw`), read again only if the tag turns out to open its tool. Keeping it aside in
   * `carry` instead made every chunk rejoin and reread it.
   */
  private heldMark: FieldMark | null = null
  private readonly heldRaw = new Rope()
  /** Set by scanFenced when a held tag opens after all: the window to read again from it. */
  private restart: string | null = null
  private literalBefore = 0
  /** Where the window set in `restart` starts. */
  private heldFrom = 0
  /** Backticks of a run that went on to the end of the window, and its offset (inside a line). */
  private runHave = 0
  private runAt = 0
  /** scanFenced's next '<', '`' and newline in the window of feed number `nextFeed`. */
  private nextFeed = -1
  private nextLt = -1
  private nextBt = -1
  private nextNl = -1
  /** Feeds so far: tells a window from the previous one. */
  private feeds = 0
  /** Diagnostics found past `maxDiagnostics`, and the offset of the first of them. */
  private dropped = 0
  private droppedAt = 0
  /** Start of a run of dropped text inside a tool (diagnostics), or -1. */
  private dropAt = -1
  private dropSample = ''

  private readonly textTags: TagSet
  private readonly toolTags: TagSet
  private readonly tools: Set<string>
  private readonly params: Set<string>
  private readonly greedy: Readonly<Record<string, readonly string[]>>
  private readonly unknownCache: Map<string, boolean>
  private readonly textMax: number
  private readonly toolMax: number

  constructor(private readonly o: ResolvedOptions) {
    const t = tables(o.dialect, o.reasoningTags)
    this.tools = t.tools
    this.params = t.params
    this.textTags = t.textTags
    this.toolTags = t.toolTags
    this.unknownCache = t.unknownCache
    // the longest tag candidate after a '<' (its limit is fixed by the options): text mode, with
    // diagnostics, also waits for unknown tool-like names to complete, so that reporting them
    // does not depend on where chunks were cut
    const slack = 1 + (o.lenientTags ? LENIENT_SLACK : 0)
    this.textMax = Math.max(this.textTags.maxInner, o.diagnostics ? UNKNOWN_MAX : 0) + slack
    this.toolMax = this.toolTags.maxInner + slack
    this.greedy = o.dialect.greedy
  }

  /** Feeds more text. */
  feed(chunk: string): void {
    if (chunk.length === 0) return
    this.feeds++
    let w = this.carry.length > 0 ? this.carry + chunk : chunk
    let base = this.pos
    this.carry = ''
    let p = 0
    this.bodyFrom = 0
    this.viewFrom = 0
    let n = w.length
    while (p < n) {
      switch (this.mode) {
        case Mode.Text: {
          const r = this.o.codeFences ? this.scanFenced(w, p, base) : this.scanText(w, p, base)
          if (r < 0) {
            const again = this.restart
            if (again === null) return this.keep(w, base, ~r)
            // a tag held in a code span of an earlier window opens its tool after all: read on
            // from it, in a window that starts there
            this.restart = null
            this.feeds++
            base = this.heldFrom
            w = again
            n = w.length
            p = 0
            this.bodyFrom = 0
            this.viewFrom = 0
            break
          }
          p = r
          this.bodyFrom = p
          this.viewFrom = p
          break
        }
        case Mode.Tool: {
          const r = this.scanTool(w, p, base)
          if (r < 0) return this.keep(w, base, ~r)
          p = r
          break
        }
        case Mode.Param: {
          const r = this.scanClose(w, p, this.paramClose, this.param!)
          if (r < 0) return this.keep(w, base, ~r)
          const tool = this.tool!
          tool.params[this.paramName] = this.param!.value
          if (tool.body !== null) this.closeGreedyParam(tool, w)
          this.param = null
          this.setMode(Mode.Tool)
          p = r
          break
        }
        case Mode.Reasoning: {
          const r = this.scanClose(w, p, this.reasoningClose, this.reasoning!)
          if (r < 0) return this.keep(w, base, ~r)
          const content = this.reasoning!.value
          if (content.length > 0) this.done.push({ type: 'reasoning', reasoning: content, partial: false })
          this.reasoning = null
          this.setMode(Mode.Text)
          this.bol = false
          p = r
          break
        }
      }
    }
    this.keep(w, base, n)
  }

  /** Ends the window: everything before `cut` is decided, the rest is carried to the next feed. */
  private keep(w: string, base: number, cut: number): void {
    const tool = this.tool
    if (tool !== null && tool.body !== null) {
      this.bodyTo(w, cut)
      // greedy views see the body only of a tool still open when a feed ends: in a tool that
      // closes within the feed (every tool of a one-shot parse) they would be wasted work
      if (tool.views.length > 0 && cut > this.viewFrom) this.feedViews(tool, w.slice(this.viewFrom, cut))
    }
    this.carry = cut < w.length ? w.slice(cut) : ''
    this.pos = base + cut
  }

  /**
   * Looks for a tag starting at the `<` at `s`: returns the index of its `>`, NONE if no tag can
   * start there, PARTIAL if the window ends while it still could.
   */
  private tagEnd(w: string, s: number, tags: TagSet): number {
    const n = w.length
    const text = tags === this.textTags
    const lim = Math.min(n, s + (text ? this.textMax : this.toolMax) + 1)
    for (let j = s + 1; j < lim; j++) {
      const c = w.charCodeAt(j)
      if (c === GT) return j
      if (c === LT) return NONE
    }
    if (lim === n && !this.ended) {
      // with diagnostics, text mode waits for any cut candidate: an unknown name is reported when
      // within two edits of a tool's (`</read_file>`, `< read_file >` included), and whether it
      // is must not depend on where the chunk ended
      if (text && this.o.diagnostics) return PARTIAL
      if (this.cutMatches(w.slice(s + 1), (x) => tags.prefixes.has(x), (x) => tags.names.has(x))) return PARTIAL
    }
    return NONE
  }

  /**
   * Could `raw`, the text after a '<' cut by the end of the input, still become a tag?
   * `prefix` tests a name that may grow; `whole` a name already followed by white space
   * (`lenientTags`), which only '>' can complete.
   */
  private cutMatches(raw: string, prefix: (name: string) => boolean, whole: (name: string) => boolean): boolean {
    if (!this.o.lenientTags) return prefix(raw)
    const name = lenientInner(raw)
    if (name === null) return false
    // a name (not just the slash) followed by a blank: only '>' can complete it
    const named = name.length > (name.charCodeAt(0) === SLASH ? 1 : 0)
    return named && isBlank(raw.charCodeAt(raw.length - 1)) ? whole(name) : prefix(name)
  }

  /** The name inside the brackets of a whole tag, normalised for `lenientTags`; null if it is no tag. */
  private innerName(raw: string): string | null {
    if (!this.o.lenientTags) return raw
    // without blanks it is a plain tag (most are): no regex needed
    if (raw.indexOf(' ') < 0 && raw.indexOf('\t') < 0) return raw
    // `< / name >`: white space around the slash and the name, never inside the name
    const name = lenientInner(raw)
    return name === null || name.length === 0 || name === '/' ? null : name
  }

  /** Text mode: returns where the next mode starts, or ~cut when the window is used up. */
  private scanText(w: string, p: number, base: number): number {
    let from = p
    for (;;) {
      const s = w.indexOf('<', from)
      if (s < 0) {
        this.text.push(w.slice(p))
        return ~w.length
      }
      const e = this.tagEnd(w, s, this.textTags)
      if (e === PARTIAL) {
        this.text.push(w.slice(p, s))
        return ~s
      }
      if (e === NONE) {
        from = s + 1
        continue
      }
      const name = this.innerName(w.slice(s + 1, e))
      if (name !== null && this.textTags.names.has(name)) {
        this.text.push(w.slice(p, s))
        this.openTag(name)
        return e + 1
      }
      if (this.o.diagnostics && name !== null) this.checkUnknown(name, base + s)
      from = e + 1
    }
  }

  /**
   * Text mode with `codeFences`: tags inside a fenced block or an inline code span are text.
   * Fences open and close at line starts (up to three spaces, then three or more backticks).
   * A backtick run opens a span that the next run of the same length on the same line closes.
   * While a span is open, a tool tag in it is held back (kept in `carry`, shown as text) until
   * the span closes (the tag was text) or the line ends first (the backtick was literal: scan
   * again from the tag, which now opens its tool). Every decision depends only on offsets in
   * the text, never on where chunks were cut.
   */
  private scanFenced(w: string, p: number, base: number): number {
    const n = w.length
    let i = p
    // the next '<', '`' and newline found in this window by an earlier call, which left text
    // mode for a tag: without them every tool call rescanned the text to the next backtick or
    // newline, perhaps the end of a long message (quadratic in the number of calls)
    let nextLt = -1
    let nextBt = -1
    let nextNl = -1
    if (this.nextFeed === this.feeds) {
      nextLt = this.nextLt
      nextBt = this.nextBt
      nextNl = this.nextNl
    }
    if (this.runHave > 0 && !this.bol) {
      // a run of backticks inside a line went on to the end of the previous window
      let k = i
      while (k < n && w.charCodeAt(k) === BACKTICK) k++
      const run = this.runHave + k - i
      if (k === n && !this.ended) {
        this.runHave = run
        return this.cutFenced(w, p, base, n)
      }
      this.runHave = 0
      this.spanRun(this.runAt, run)
      i = k
    }
    while (i < n) {
      if (this.bol) {
        // a line-start run the previous window ended in goes on here, with its spaces counted
        let j = i
        const had = this.runHave
        if (had === 0) while (j < n && j - i < 3 && w.charCodeAt(j) === SPACE) j++
        let k = j
        while (k < n && w.charCodeAt(k) === BACKTICK) k++
        const run = had + k - j
        if (k === n && !this.ended && !(this.fence > 0 && run >= this.fence)) {
          if (run === 0) return this.cutFenced(w, p, base, i)
          // the run may go on: remember its length rather than keep it aside, where every chunk
          // would read it again; it is text whatever it decides
          if (had === 0) this.runAt = base + j
          this.runHave = run
          return this.cutFenced(w, p, base, n)
        }
        this.runHave = 0
        this.bol = false
        if (this.fence > 0 || run >= 3) {
          this.fence = this.fence > 0 ? (run >= this.fence ? 0 : this.fence) : run
          this.lineText = true
          i = k
          continue
        }
        // no fence: the run is read again below as an inline one, or, begun in an earlier
        // window, taken as one here
        if (had > 0) {
          this.spanRun(this.runAt, run)
          i = k
        }
      }
      if (this.fence > 0 || this.lineText) {
        const nl = w.indexOf('\n', i)
        if (nl < 0) return this.cutFenced(w, p, base, n)
        this.lineText = false
        this.bol = true
        i = nl + 1
        continue
      }
      // the next '<', '`' or newline; each is looked for again only once passed
      if (nextLt < i) nextLt = indexOrEnd(w, '<', i)
      if (nextBt < i) nextBt = indexOrEnd(w, '`', i)
      if (nextNl < i) nextNl = indexOrEnd(w, '\n', i)
      const q = Math.min(nextLt, nextBt, nextNl)
      if (this.span > 0 && base + q > this.spanAt + MAX_SPAN) {
        if (base + n <= this.spanAt + MAX_SPAN) return this.cutFenced(w, p, base, n)
        const held = this.heldAt
        i = this.literal(this.spanAt + MAX_SPAN) - base
        if (held >= 0 && held < base) return this.reopen(w, held)
        nextLt = nextBt = nextNl = -1 // i may have gone back to a held tag
        continue
      }
      if (q === n) return this.cutFenced(w, p, base, n)
      const c = w.charCodeAt(q)
      if (c === NL) {
        if (this.span > 0) {
          const held = this.heldAt
          this.literal(base + q)
          if (held >= 0) {
            if (held < base) return this.reopen(w, held)
            i = held - base
            nextLt = nextBt = nextNl = -1
            continue
          }
        }
        this.bol = true
        i = q + 1
        continue
      }
      if (c === BACKTICK) {
        let k = q
        while (k < n && w.charCodeAt(k) === BACKTICK) k++
        if (k === n && !this.ended) {
          // see the line-start run above
          this.runHave = k - q
          this.runAt = base + q
          return this.cutFenced(w, p, base, n)
        }
        this.spanRun(base + q, k - q)
        i = k
        continue
      }
      // '<'
      if (this.heldAt >= 0) {
        i = q + 1
        continue
      }
      const e = this.tagEnd(w, q, this.textTags)
      if (e === PARTIAL) return this.cutFenced(w, p, base, q)
      if (e === NONE) {
        i = q + 1
        continue
      }
      const name = this.innerName(w.slice(q + 1, e))
      if (name !== null && this.textTags.names.has(name)) {
        if (this.span > 0) {
          // the text before it is decided; what follows is text only while the tag is held
          this.text.push(w.slice(p, q))
          p = q
          this.heldAt = base + q
          i = e + 1
          continue
        }
        this.text.push(w.slice(p, q))
        this.openTag(name)
        this.nextFeed = this.feeds
        this.nextLt = nextLt
        this.nextBt = nextBt
        this.nextNl = nextNl
        return e + 1
      }
      if (this.o.diagnostics && name !== null && this.span === 0) this.checkUnknown(name, base + q)
      // not e + 1: a newline or backtick inside a non-tag like `<a\n```>` still counts
      i = q + 1
    }
    return this.cutFenced(w, p, base, n)
  }

  /** Ends scanFenced's window at `at` (past a held tag, its text is pushed as provisional). */
  private cutFenced(w: string, p: number, base: number, at: number): number {
    if (this.heldAt >= 0 && at > p) {
      // while a tag is held the window is always used up (its '<'s are not read), so the raw
      // text from the tag on is heldRaw followed by the next window
      if (this.heldMark === null) this.heldMark = this.text.mark()
      this.heldRaw.push(w.slice(p, at))
    }
    this.text.push(w.slice(p, at))
    return ~at
  }

  /**
   * The tag held at `held`, in an earlier window, opens its tool: the text shown since is taken
   * back, and feed reads again from the tag (each held stretch is read again at most once).
   */
  private reopen(w: string, held: number): number {
    this.text = this.text.before(this.heldMark!)
    this.heldMark = null
    this.restart = this.heldRaw.value + w
    this.heldRaw.reset()
    this.heldFrom = held
    return ~0
  }

  /** A run of `run` backticks at offset `at` inside a line opens or closes a code span. */
  private spanRun(at: number, run: number): void {
    if (at < this.literalBefore) return
    if (this.span === 0) {
      this.span = run
      this.spanAt = at
    } else if (run === this.span) {
      this.span = 0
      // a held tag was text: what was shown of it stays
      this.heldAt = -1
      if (this.heldMark !== null) {
        this.heldMark = null
        this.heldRaw.reset()
      }
    }
  }

  /** The open span's backticks were literal (its line ended, or it ran too long). */
  private literal(at: number): number {
    const held = this.heldAt
    this.span = 0
    this.heldAt = -1
    this.literalBefore = at
    return held >= 0 ? held : at
  }

  /** Opens a tool or reasoning block after the text before it was closed. */
  private openTag(name: string): void {
    this.closeText()
    if (this.tools.has(name)) {
      this.openTool(name)
      return
    }
    this.setMode(Mode.Reasoning)
    this.reasoningClose = '</' + name + '>'
    this.reasoning = new Field()
  }

  /** Tool mode: param openings and the tool's closing tag; everything else is dropped. */
  private scanTool(w: string, p: number, base: number): number {
    const tool = this.tool!
    let from = p
    for (;;) {
      const s = w.indexOf('<', from)
      if (s < 0) {
        this.ignored(w, from, w.length, base)
        return ~w.length
      }
      this.ignored(w, from, s, base)
      const e = this.tagEnd(w, s, this.toolTags)
      if (e === PARTIAL) return ~s
      if (e === NONE) {
        this.ignored(w, s, s + 1, base)
        from = s + 1
        continue
      }
      const name = this.innerName(w.slice(s + 1, e))
      if (name !== null && this.params.has(name)) {
        this.flushIgnored()
        this.setMode(Mode.Param)
        this.paramName = name
        this.paramClose = '</' + name + '>'
        this.paramPath = 'params.' + name
        this.param = new Field(this.o.decodeEntities)
        if (tool.body !== null) this.openGreedyParam(tool, w, e + 1)
        return e + 1
      }
      if (name === '/' + tool.name) {
        this.flushIgnored()
        if (tool.body !== null) this.bodyTo(w, s)
        this.closeTool()
        return e + 1
      }
      this.ignored(w, s, e + 1, base)
      from = e + 1
    }
  }

  /**
   * Inside a param or reasoning tag: only the matching closing tag ends it. Returns the index
   * after the closing tag, or ~cut with the value pushed up to cut.
   */
  private scanClose(w: string, p: number, close: string, field: Field): number {
    if (!this.o.lenientTags) {
      // in a streamed chunk the few '<' are checked directly; indexOf of a whole tag pays a
      // setup cost per call that only long texts repay
      if (w.length - p < 256) return this.scanCloseShort(w, p, close, field)
      const i = w.indexOf(close, p)
      if (i >= 0) {
        field.push(w.slice(p, i))
        this.closeAt = i
        return i + close.length
      }
      // a cut closing tag can only start among the last close.length - 1 characters
      if (!this.ended) {
        const n = w.length
        for (let l = w.indexOf('<', Math.max(p, n - close.length + 1)); l >= 0; l = w.indexOf('<', l + 1)) {
          if (close.startsWith(w.slice(l))) {
            field.push(w.slice(p, l))
            return ~l
          }
        }
      }
      field.push(p === 0 ? w : w.slice(p))
      return ~w.length
    }
    const want = close.slice(1, -1)
    // candidates, each confirmed by closeEnd, which alone defines the tag (and its length
    // limit): from a regex compiled once per name in mid-sized windows, where it beats visiting
    // every '<' of the value; in streamed chunks and in long texts, V8's indexOf jumping from
    // '<' to '<' is faster (measured)
    const span = w.length - p
    if (span > 256 && span <= 16384) {
      const re = lenientClose(want)
      re.lastIndex = p
      for (let m = re.exec(w); m !== null; m = re.exec(w)) {
        const j = this.closeEnd(w, m.index, want)
        if (j >= 0) {
          field.push(w.slice(p, m.index))
          this.closeAt = m.index
          return j + 1
        }
        re.lastIndex = m.index + 1
      }
    } else {
      for (let s = w.indexOf('<', p); s >= 0; s = w.indexOf('<', s + 1)) {
        const c1 = s + 1 < w.length ? w.charCodeAt(s + 1) : SLASH
        if (c1 !== SLASH && !isBlank(c1)) continue
        const j = this.closeEnd(w, s, want)
        if (j >= 0) {
          field.push(w.slice(p, s))
          this.closeAt = s
          return j + 1
        }
      }
    }
    // a tag cut by the end of the window starts within its longest length of the end, and has
    // no '<' after its own
    if (!this.ended) {
      let l = -1
      for (let k = w.indexOf('<', Math.max(p, w.length - want.length - 2 - LENIENT_SLACK)); k >= 0; k = w.indexOf('<', k + 1)) l = k
      if (l >= p && this.closeEnd(w, l, want) === PARTIAL) {
        field.push(w.slice(p, l))
        return ~l
      }
    }
    field.push(p === 0 ? w : w.slice(p))
    return ~w.length
  }

  /** scanClose for a short window: same result, one pass over its '<'. */
  private scanCloseShort(w: string, p: number, close: string, field: Field): number {
    const n = w.length
    for (let l = w.indexOf('<', p); l >= 0; l = w.indexOf('<', l + 1)) {
      if (w.startsWith(close, l)) {
        field.push(w.slice(p, l))
        this.closeAt = l
        return l + close.length
      }
      if (!this.ended && l > n - close.length && close.startsWith(w.slice(l))) {
        field.push(w.slice(p, l))
        return ~l
      }
    }
    field.push(p === 0 ? w : w.slice(p))
    return ~n
  }

  /** Lenient closing tag `</ name >` at `s`: index of '>', NONE or PARTIAL. */
  private closeEnd(w: string, s: number, want: string): number {
    // by hand rather than a regex: inside a long value every '<' comes through here
    const n = w.length
    const lim = Math.min(n, s + want.length + 2 + LENIENT_SLACK)
    let j = s + 1
    while (j < lim && isBlank(w.charCodeAt(j))) j++
    if (j < lim && w.charCodeAt(j) === SLASH) {
      j++
      while (j < lim && isBlank(w.charCodeAt(j))) j++
      let k = 1
      while (k < want.length && j < lim && w.charCodeAt(j) === want.charCodeAt(k)) {
        k++
        j++
      }
      if (k === want.length) {
        while (j < lim && isBlank(w.charCodeAt(j))) j++
        if (j < lim) return w.charCodeAt(j) === GT ? j : NONE
      } else if (j < lim) return NONE
    } else if (j < lim) return NONE
    // the window ended with everything so far matching: the tag may still come
    return j === n && lim === n && !this.ended ? PARTIAL : NONE
  }



  private closeText(): void {
    const content = this.text.value
    if (content.length > 0) this.done.push({ type: 'text', content, partial: false })
    this.text = new Field()
  }

  private openTool(name: string): void {
    this.runW = null // a body range left by an unclosed tool is not this one's
    // own keys only: a dialect given as a plain object inherits `constructor` and friends
    const greedy = Object.hasOwn(this.greedy, name) ? this.greedy[name] : undefined
    this.tool = {
      name,
      call_id: this.o.idGenerator(),
      params: {},
      body: greedy !== undefined ? new Rope() : null,
      spans: {},
      bodyLength: 0,
      skipping: false,
      firstRaw: null,
      openTag: greedy !== undefined && greedy.length === 1 && !this.o.decodeEntities ? '<' + greedy[0] + '>' : null,
      firstOpen: -1,
      openSeam: '',
      after: null,
      views: greedy !== undefined && this.o.greedyWhileStreaming
        ? greedy.map((g) => new GreedyView(g, '</' + name + '>', this.o.decodeEntities))
        : [],
    }
    this.setMode(Mode.Tool)
  }

  private setMode(m: Mode): void {
    this.mode = m
    this.shape++
  }

  /**
   * Tools with greedy params keep their body for SPEC 3.5, which needs the text from the first
   * opening tag to the last closing tag. In the usual case the first opening tag is the param's
   * own, and its value is already held by the param's Field: then the body skips that value and
   * keeps only what follows its first closing tag (`after`), instead of a second copy of a whole
   * file. With entity decoding the Field holds decoded text, so that takes the plain path
   * (`body` holds everything).
   */
  private bodyTo(w: string, to: number): void {
    const tool = this.tool!
    if (to <= this.bodyFrom) return
    if (tool.firstOpen < 0 && tool.openTag !== null) {
      const open = tool.openTag
      const s = tool.openSeam + w.slice(this.bodyFrom, to)
      const i = s.indexOf(open)
      if (i >= 0) tool.firstOpen = tool.bodyLength - tool.openSeam.length + i
      else tool.openSeam = s.slice(-(open.length - 1))
    }
    tool.bodyLength += to - this.bodyFrom
    if (!tool.skipping) {
      // a run of the same window is kept as a range and cut once: in a one-shot parse the whole
      // body is then one slice of the text, not pieces that reading it would have to copy
      // (the position first: a new window's first range starts at 0, where no range ends, so
      // the strings are compared only within one window, where they are the same object)
      if (this.runEnd === this.bodyFrom && this.runW === w) this.runEnd = to
      else {
        this.flushBody()
        this.runW = w
        this.runStart = this.bodyFrom
        this.runEnd = to
      }
    }
    this.bodyFrom = to
  }

  /** Adds the pending range of the body to the Rope it belongs to; before any read or switch. */
  private flushBody(): void {
    const w = this.runW
    if (w === null) return
    this.runW = null
    const tool = this.tool!
    const piece = w.slice(this.runStart, this.runEnd)
    if (tool.after !== null) tool.after.push(piece)
    else tool.body!.push(piece)
  }

  private feedViews(tool: ToolState, piece: string): void {
    for (const v of tool.views) {
      const was = v.active
      v.push(piece)
      if (!was && v.active) this.shape++
    }
  }

  private openGreedyParam(tool: ToolState, w: string, valueStart: number): void {
    this.bodyTo(w, valueStart)
    this.valueAt = tool.bodyLength
    // `after` is set once the skipped value closed (with `firstRaw`); `skipping` is never on here,
    // as the param that set it closes before another opens
    if (tool.after !== null || this.o.decodeEntities) return
    const names = this.greedy[tool.name]!
    this.flushBody()
    if (names.length !== 1 || names[0] !== this.paramName) return
    // the value skipped must start at the first opening tag of the body (found by bodyTo)
    if (tool.firstOpen !== tool.bodyLength - this.paramName.length - 2) return
    tool.skipping = true
  }

  private closeGreedyParam(tool: ToolState, w: string): void {
    this.bodyTo(w, this.closeAt)
    // no pending range to flush before `after` takes over: openGreedyParam flushed before
    // skipping began, and skipping adds none
    if (tool.skipping) {
      const f = this.param!
      tool.skipping = false
      tool.firstRaw = f.value + f.trailing
      tool.after = new Rope()
      return
    }
    if (tool.after === null) tool.spans[this.paramName] = [this.valueAt, tool.bodyLength]
  }

  private closeTool(): void {
    const tool = this.tool!
    if (tool.body !== null) {
      this.flushBody()
      applyGreedy(tool, this.greedy[tool.name]!, this.o.decodeEntities)
    }
    this.done.push(toolBlock(tool, tool.params, false))
    this.tool = null
    this.setMode(Mode.Text)
    this.bol = false
  }

  /**
   * Collects a run of dropped text inside a tool; the run is reported once, when a recognised
   * tag or the end of the input ends it, so the report does not depend on chunking.
   */
  private ignored(w: string, from: number, to: number, base: number): void {
    if (!this.o.diagnostics || to <= from) return
    if (this.dropAt < 0) {
      const piece = w.slice(from, to)
      const lead = piece.length - piece.trimStart().length
      if (lead === piece.length) return
      this.dropAt = base + from + lead
      this.dropSample = piece.slice(lead, lead + SAMPLE)
    } else if (this.dropSample.length < SAMPLE) {
      this.dropSample += w.slice(from, Math.min(to, from + SAMPLE - this.dropSample.length))
    }
  }

  private flushIgnored(): void {
    const d = this.ignoredDiagnostic()
    if (d === null) return
    this.report(d)
    this.dropAt = -1
    this.dropSample = ''
  }

  /** The report of the pending run of dropped text, if any (its sample is at most SAMPLE long). */
  private ignoredDiagnostic(): Diagnostic | null {
    if (this.dropAt < 0) return null
    return {
      code: 'ignored-content',
      message: `dropped ${JSON.stringify(this.dropSample.trim())} inside <${this.tool!.name}>, outside any parameter`,
      offset: this.dropAt,
    }
  }

  private checkUnknown(name: string, offset: number): void {
    if (this.params.has(name)) return
    let yes = this.unknownCache.get(name)
    if (yes === undefined) {
      yes = looksLikeTool(name, this.tools)
      if (this.unknownCache.size < 4096) this.unknownCache.set(name, yes)
    }
    if (!yes) return
    // report()'s cap, checked first so that a flood past it builds no message
    if (this.diagnostics.length >= this.o.maxDiagnostics) return this.drop(offset)
    this.diagnostics.push({ code: 'unknown-tool', message: `<${name}> looks like a tool call but is not a tool of this dialect; it was kept as text`, offset })
  }

  /**
   * Keeps a diagnostic found along the text, up to `maxDiagnostics`. They are found in the same
   * order whatever the chunking, so the ones kept and the count of the rest are the same too.
   */
  private report(d: Diagnostic): void {
    if (this.diagnostics.length < this.o.maxDiagnostics) this.diagnostics.push(d)
    else this.drop(d.offset)
  }

  private drop(offset: number): void {
    if (this.dropped++ === 0) this.droppedAt = offset
  }

  /** Marks the end of the input: a held tag candidate can no longer become a tag. */
  end(): void {
    this.ended = true
  }

  /**
   * What is wrong at the end of the text so far (unclosed tool or param, truncated opening tag,
   * a pending run of dropped text), without changing any state.
   */
  endDiagnostics(): Diagnostic[] {
    const out: Diagnostic[] = []
    if (!this.o.diagnostics) return out
    const carry = this.carry
    if (this.mode === Mode.Text && carry.length > 1) {
      const tags = this.textTags
      if (this.cutMatches(carry.slice(1), (x) => x.length > 0 && tags.prefixes.has(x), (x) => tags.names.has(x))) {
        out.push({ code: 'truncated-open-tag', message: `the input ended inside an opening tag ${JSON.stringify(carry)}`, offset: this.pos })
      }
    }
    if (this.mode === Mode.Tool || this.mode === Mode.Param) {
      const dropped = this.ignoredDiagnostic()
      if (dropped !== null) out.push(dropped)
      const at = this.pos + carry.length
      if (this.mode === Mode.Param) out.push({ code: 'unclosed-param', message: `the input ended inside <${this.paramName}> of <${this.tool!.name}>`, offset: at })
      out.push({ code: 'unclosed-tool', message: `the input ended inside <${this.tool!.name}>: the call has no closing tag`, offset: at })
    }
    if (this.dropped > 0) {
      const n = this.dropped
      out.push({
        code: 'diagnostics-dropped',
        message: `${n} more diagnostic${n === 1 ? ' was' : 's were'} found and left out after the first ${this.o.maxDiagnostics} (option maxDiagnostics)`,
        offset: this.droppedAt,
      })
    }
    return out
  }

  /**
   * The one string of the open block that grows as text arrives, with its rendering after
   * `field.core`; null when there is none or when two values grow at once (a param streaming
   * while a greedy view is open). The object is reused: read it before the next call.
   */
  openField(final = false): OpenField | null {
    const hide = this.o.hidePartialTags && !this.ended
    switch (this.mode) {
      case Mode.Text:
        return this.fill('content', this.text, this.text.ext(this.textTail(hide)))
      case Mode.Reasoning: {
        const f = this.reasoning!
        return this.fill('reasoning', f, f.ext(hide ? '' : this.carry))
      }
      case Mode.Tool:
      case Mode.Param: {
        const inParam = this.mode === Mode.Param
        let found: GreedyView | null = null
        for (const v of this.tool!.views) {
          if (!v.active) continue
          if ((inParam && this.paramName !== v.name) || found !== null) return null
          found = v
        }
        if (found !== null) return this.fill(found.path, found.field, this.viewExt(found, final, hide))
        if (!inParam) return null
        const f = this.param!
        return this.fill(this.paramPath, f, hide ? f.ext('', true) : f.ext(this.carry))
      }
    }
  }

  /** One result object per engine, filled in place: the stream asks after every chunk. */
  private readonly scratch: OpenField = { path: '', field: new Field(), ext: '' }

  private fill(path: string, field: Field, ext: string): OpenField {
    const o = this.scratch
    o.path = path
    o.field = field
    o.ext = ext
    return o
  }

  /** What a cut tag at the end of text renders as. */
  private textTail(hide: boolean): string {
    const tail = this.carry
    if (hide && tail.length > 0) {
      const tags = this.textTags
      if (this.cutMatches(tail.slice(1), (x) => tags.prefixes.has(x), (x) => tags.names.has(x))) return ''
    }
    return tail
  }

  /** A greedy view's rendering after its core: held back while streaming, released at the end. */
  private viewExt(v: GreedyView, final: boolean, hide: boolean): string {
    const inside = this.mode === Mode.Param && this.paramName === v.name
    return v.ext(final ? (inside ? this.carry : '') : null, hide)
  }

  /**
   * Renders the open block (null when there is none, or it is empty text), as a parse of the
   * text so far would show it (SPEC 3.6). `final` completes it. Pure: rendering twice gives the
   * same block.
   */
  render(final = false): Block | null {
    const hide = this.o.hidePartialTags && !this.ended
    switch (this.mode) {
      case Mode.Text: {
        const content = this.text.core + this.text.ext(this.textTail(hide))
        return content.length === 0 ? null : { type: 'text', content, partial: !final }
      }
      case Mode.Reasoning: {
        const f = this.reasoning!
        const reasoning = f.core + f.ext(hide ? '' : this.carry)
        return reasoning.length === 0 ? null : { type: 'reasoning', reasoning, partial: !final }
      }
      case Mode.Tool:
      case Mode.Param: {
        const tool = this.tool!
        const params = { ...tool.params }
        let viewed = false
        for (const v of tool.views) {
          if (!v.active) continue
          params[v.name] = v.field.core + this.viewExt(v, final, hide)
          if (this.paramName === v.name) viewed = true
        }
        if (this.mode === Mode.Param && !viewed) {
          const f = this.param!
          params[this.paramName] = f.core + (hide ? f.ext('', true) : f.ext(this.carry))
        }
        return toolBlock(tool, params, !final, final && this.o.truncation)
      }
    }
  }

  /** The whole parse so far: complete blocks then the open one. */
  blocks(final = false): Block[] {
    const open = this.render(final)
    return open === null ? this.done.slice() : [...this.done, open]
  }
}

function toolBlock(tool: ToolState, params: Record<string, string>, partial: boolean, truncated = false): ToolUseBlock {
  const b: ToolUseBlock = { type: 'tool_use', name: tool.name, params, partial, call_id: tool.call_id, isNativeToolCall: false }
  if (truncated) b.truncated = true
  return b
}
