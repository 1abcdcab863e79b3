/**
 * The `codeFences` option: text mode's scanner when tool tags inside Markdown code fences and
 * inline code spans are text (SPEC 4); the engine runs it instead of its exact text scanner
 * only when the option is on, and owns nothing of its state.
 * @internal
 * @module
 */
import { Rope } from './rope.js'
import type { FieldMark } from './field.js'
import { NONE, PARTIAL } from './lenient.js'
import type { Engine } from './engine.js'
import type { TagReader } from './tag-reader.js'
import { exactNameAt } from './tags.js'

// character codes
const NL = 10 // '\n'
const SPACE = 32
const BACKTICK = 96

/** An inline code span whose closing run does not come within this many characters is literal. */
const MAX_SPAN = 4096

function indexOrEnd(w: string, c: string, from: number): number {
  const i = w.indexOf(c, from)
  return i < 0 ? w.length : i
}

/**
 * The first backtick in `w` from `from`, or `to` if none comes before it (`to`: the next tag
 * candidate, which is looked at first anyway). Not a search to the window's end: in a message
 * whose text opens a long tool body after a few lines, that end is the body's, a megabyte of
 * code with no backtick before the tag.
 */
function backtickBefore(w: string, from: number, to: number): number {
  if (to - from <= 64) {
    for (let k = from; k < to; k++) if (w.charCodeAt(k) === BACKTICK) return k
    return to
  }
  const k = w.slice(from, to).indexOf('`')
  return k < 0 ? to : from + k
}

/**
 * Fences open and close at line starts (up to three spaces, then three or more backticks).
 * A backtick run opens a span that the next run of the same length on the same line closes.
 * While a span is open, a tool tag in it is held back (shown as text) until the span closes
 * (the tag was text) or the line ends first (the backtick was literal: scan again from the tag,
 * which now opens its tool). Every decision depends only on offsets in the text, never on where
 * chunks were cut.
 */
export class FenceScanner {
  constructor(private readonly reader: TagReader) {}

  /** At a line start; the engine clears it when a block closes (a tag is never a line start). */
  bol = true
  private fence = 0
  private lineText = false
  private span = 0
  private spanAt = 0
  private heldAt = -1
  /**
   * A held tag's text is shown as text while it is held: pushed to the engine's text as it
   * comes, with the point to come back to (`heldMark`) and its raw text past the windows it
   * began in (`heldRaw`), read again only if the tag turns out to open its tool. Keeping it
   * aside in the engine's `carry` instead made every chunk rejoin and reread it.
   */
  private heldMark: FieldMark | null = null
  private heldRaw: Rope | null = null
  /** Set when a held tag opens after all: the window the engine reads again from it, ... */
  restart: string | null = null
  /** ... and where that window starts in the whole text. */
  heldFrom = 0
  private literalBefore = 0
  /** Backticks of a run that went on to the end of the window, and its offset (inside a line). */
  private runHave = 0
  private runAt = 0
  /**
   * The next '<', '`' and newline of the current window, kept when the scan left text mode for
   * a tag: without them every tool call rescanned the text to the next backtick or newline,
   * perhaps the end of a long message (quadratic in the number of calls).
   */
  private nextValid = false
  private nextLt = -1
  private nextBt = -1
  private nextNl = -1

  /** The engine starts reading a new window: the positions kept are of the last one. */
  newWindow(): void {
    this.nextValid = false
  }

  /** Text mode: returns where the next mode starts, or ~cut when the window is used up. */
  scan(e: Engine, w: string, p: number, base: number): number {
    const n = w.length
    let i = p
    let nextLt = -1
    let nextBt = -1
    let nextNl = -1
    if (this.nextValid) {
      nextLt = this.nextLt
      nextBt = this.nextBt
      nextNl = this.nextNl
    }
    if (this.runHave > 0 && !this.bol) {
      // a run of backticks inside a line went on to the end of the previous window
      let k = i
      while (k < n && w.charCodeAt(k) === BACKTICK) k++
      const run = this.runHave + k - i
      if (k === n && !e.ended) {
        this.runHave = run
        return this.cut(e, w, p, n)
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
        if (k === n && !e.ended && !(this.fence > 0 && run >= this.fence)) {
          if (run === 0) return this.cut(e, w, p, i)
          // the run may go on: remember its length rather than keep it aside, where every chunk
          // would read it again; it is text whatever it decides
          if (had === 0) this.runAt = base + j
          this.runHave = run
          return this.cut(e, w, p, n)
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
        if (nl < 0) return this.cut(e, w, p, n)
        this.lineText = false
        this.bol = true
        i = nl + 1
        continue
      }
      // the next '<', '`' (and newline, in a span); each is looked for again only once passed
      if (nextLt < i) nextLt = this.reader.nextCandidate(w, i, e.textTags, e.ended)
      // (a backtick past the next candidate is not needed before it: `to` then stands for none)
      if (nextBt < i) nextBt = backtickBefore(w, i, nextLt)
      let q: number
      if (this.span > 0) {
        if (nextNl < i) nextNl = indexOrEnd(w, '\n', i)
        q = Math.min(nextLt, nextBt, nextNl)
        if (base + q > this.spanAt + MAX_SPAN) {
          if (base + n <= this.spanAt + MAX_SPAN) return this.cut(e, w, p, n)
          const held = this.heldAt
          i = this.literal(this.spanAt + MAX_SPAN) - base
          if (held >= 0 && held < base) return this.reopen(e, w, held)
          nextLt = nextBt = nextNl = -1 // i may have gone back to a held tag
          continue
        }
      } else {
        // outside a span a newline matters only before a backtick run that may start a line (a
        // fence), and at the window's end: both are found by looking back from there, so the
        // newlines of prose are not visited (here `bol` is false: the line start was read above)
        q = nextLt < nextBt ? nextLt : nextBt
        if (q === n) {
          // the window ends at a line start, perhaps after spaces that may go on: cut there, as
          // the line-start branch above does
          let b = n
          while (b > i && n - b < 3 && w.charCodeAt(b - 1) === SPACE) b--
          if (b > i && w.charCodeAt(b - 1) === NL && !e.ended) {
            this.bol = true
            return this.cut(e, w, p, b)
          }
          return this.cut(e, w, p, n)
        }
        if (w.charCodeAt(q) === BACKTICK) {
          let b = q
          while (b > i && q - b < 3 && w.charCodeAt(b - 1) === SPACE) b--
          if (b > i && w.charCodeAt(b - 1) === NL) {
            this.bol = true
            i = b
            continue
          }
        }
      }
      if (q === n) return this.cut(e, w, p, n)
      const c = w.charCodeAt(q)
      if (c === NL) {
        if (this.span > 0) {
          const held = this.heldAt
          this.literal(base + q)
          if (held >= 0) {
            if (held < base) return this.reopen(e, w, held)
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
        if (k === n && !e.ended) {
          // see the line-start run above
          this.runHave = k - q
          this.runAt = base + q
          return this.cut(e, w, p, n)
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
      // an exact tool tag (most are) is read at once from the pair table (see TagReader.scanTool)
      let name = exactNameAt(e.textTags, w, q)
      let end: number
      if (name !== null) end = q + name.length + 1
      else {
        end = this.reader.tagEnd(w, q, e.textTags, e.ended)
        if (end === PARTIAL) return this.cut(e, w, p, q)
        if (end === NONE) {
          i = q + 1
          continue
        }
        name = this.reader.nameAt(w, q, end)
      }
      if (this.reader.textTag(e, name, q, end, base + q, this.span === 0) && name !== null) {
        if (this.span > 0) {
          // the text before it is decided; what follows is text only while the tag is held
          e.text.push(w.slice(p, q))
          p = q
          this.heldAt = base + q
          i = end + 1
          continue
        }
        e.text.push(w.slice(p, q))
        e.openTag(name)
        this.nextValid = true
        this.nextLt = nextLt
        this.nextBt = nextBt
        this.nextNl = nextNl
        return end + 1
      }
      // not end + 1: a newline or backtick inside a non-tag like `<a\n```>` still counts
      i = q + 1
    }
    return this.cut(e, w, p, n)
  }

  /** Ends the window at `at` (past a held tag, its text is pushed as provisional). */
  private cut(e: Engine, w: string, p: number, at: number): number {
    if (this.heldAt >= 0 && at > p) {
      // while a tag is held the window is always used up (its '<'s are not read), so the raw
      // text from the tag on is heldRaw followed by the next window
      if (this.heldMark === null) this.heldMark = e.text.mark()
      // made on first use: few messages hold a tag in a code span
      if (this.heldRaw === null) this.heldRaw = new Rope()
      this.heldRaw.push(w.slice(p, at))
    }
    e.text.push(w.slice(p, at))
    return ~at
  }

  /**
   * The tag held at `held`, in an earlier window, opens its tool: the text shown since is taken
   * back, and the engine reads again from the tag (each held stretch is read again at most once).
   */
  private reopen(e: Engine, w: string, held: number): number {
    e.text = e.text.before(this.heldMark!)
    this.heldMark = null
    this.restart = this.heldRaw!.value + w
    this.heldRaw!.reset()
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
        this.heldRaw!.reset()
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
}
