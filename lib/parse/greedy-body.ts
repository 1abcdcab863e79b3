/**
 * What a tool with greedy params (write_to_file) keeps of its body while it is open, for the
 * final rule of SPEC 3.5 and for the greedy views (`greedyWhileStreaming`); the engine makes one
 * per such tool and tells it where the body runs in each window.
 * @internal
 * @module
 */
import type { Field } from './field.js'
import { Rope } from './rope.js'
import { GreedyView, applyGreedy, type GreedyBody } from './greedy.js'

/**
 * The body of one open greedy tool. In the usual case the first opening tag of the body is the
 * greedy param's own, whose value is already held by the param's Field: then the body skips that
 * value and keeps only what follows its first closing tag (`after`), instead of a second copy of
 * a whole file. With entity decoding the Field holds decoded text, so that takes the plain path
 * (`body` holds everything).
 */
export class ToolBody implements GreedyBody {
  readonly body = new Rope()
  readonly spans: Record<string, [number, number]> = {}
  bodyLength = 0
  skipping = false
  firstRaw: string | null = null
  after: Rope | null = null
  /**
   * What a greedy param shows while the tool streams (`greedyWhileStreaming`), made when the tool
   * is still open at the end of a feed: before that they are inactive, which is how an empty
   * list reads, and a tool that closes within its first feed (every tool of a one-shot parse)
   * never needs them.
   */
  readonly views: GreedyView[] = []
  /** The tool's closing tag, for its views; null without `greedyWhileStreaming`. */
  private readonly viewClose: string | null
  /**
   * With one greedy param (and no entity decoding): that param's opening tag, and the offset of
   * its first occurrence in the body (-1 until found), looked for in each piece of body as it
   * comes (`openSeam`: the body's last characters, for a tag cut between pieces). Searching the
   * whole body at each opening made a tool with many openings quadratic.
   */
  private readonly openTag: string | null
  private firstOpen = -1
  private openSeam = ''
  /**
   * Where the body continues in the engine's current window, and where the views' part of it
   * starts: the engine sets both to the window's first body character (0, or the end of the
   * tool's opening tag), and `to` moves the first.
   */
  from = 0
  viewFrom = 0
  /** The body's pending range: `runW.slice(runStart, runEnd)` (see `to`). */
  private runW: string | null = null
  private runStart = 0
  private runEnd = 0
  /** Where the open param's value starts in the body. */
  private valueAt = 0

  constructor(
    private readonly names: readonly string[],
    toolName: string,
    private readonly decode: boolean,
    streamViews: boolean,
    /** The text fed so far, when the caller keeps it: the views' values are runs of it (Field.pushAt). */
    private readonly src: Rope | null = null,
  ) {
    this.openTag = names.length === 1 && !decode ? '<' + names[0] + '>' : null
    this.viewClose = streamViews ? '</' + toolName + '>' : null
  }

  /** The body runs on to `to` in window `w`. */
  to(w: string, to: number): void {
    if (to <= this.from) return
    if (this.firstOpen < 0 && this.openTag !== null) {
      const open = this.openTag
      const s = this.openSeam + w.slice(this.from, to)
      const i = s.indexOf(open)
      if (i >= 0) this.firstOpen = this.bodyLength - this.openSeam.length + i
      else this.openSeam = s.slice(-(open.length - 1))
    }
    this.bodyLength += to - this.from
    if (!this.skipping) {
      // a run of the same window is kept as a range and cut once: in a one-shot parse the whole
      // body is then one slice of the text, not pieces that reading it would have to copy
      // (the position first: a new window's first range starts at 0, where no range ends, so
      // the strings are compared only within one window, where they are the same object)
      if (this.runEnd === this.from && this.runW === w) this.runEnd = to
      else {
        this.flush()
        this.runW = w
        this.runStart = this.from
        this.runEnd = to
      }
    }
    this.from = to
  }

  /**
   * The body ran on by a whole streamed chunk of `n` characters in which it has nothing to look
   * for: the greedy param's value is skipped (its Field holds it; skipping begins only once the
   * param's first opening tag is found) and no view streams. Then it only counts the chunk, as
   * `from = viewFrom = 0` and `endWindow(chunk, n, base)` would, without the calls. Otherwise it
   * returns false having changed nothing.
   */
  skipWhole(n: number): boolean {
    // (`!== true`: see DiffSession.push)
    if (this.skipping !== true || this.viewClose !== null) return false
    this.bodyLength += n
    this.from = n
    this.viewFrom = 0
    return true
  }

  /** Adds the pending range of the body to the Rope it belongs to; before any read or switch. */
  private flush(): void {
    const w = this.runW
    if (w === null) return
    this.runW = null
    const piece = w.slice(this.runStart, this.runEnd)
    if (this.after !== null) this.after.push(piece)
    else this.body.push(piece)
  }

  /**
   * The window ends at `cut` with the tool open. Greedy views see the body only of a tool still
   * open when a feed ends: in a tool that closes within the feed (every tool of a one-shot
   * parse) they would be wasted work. Returns true when a view became active (a new shape).
   */
  endWindow(w: string, cut: number, base: number): boolean {
    this.to(w, cut)
    if (this.viewClose === null || cut <= this.viewFrom) return false
    // the first end of a feed with body in it: the body so far is all in this window
    if (this.views.length === 0) for (const g of this.names) this.views.push(new GreedyView(g, this.viewClose, this.decode, this.src))
    const piece = w.slice(this.viewFrom, cut)
    let opened = false
    for (const v of this.views) {
      const was = v.active
      v.push(piece, base + this.viewFrom)
      if (!was && v.active) opened = true
    }
    return opened
  }

  /** Param `name` opens; its value starts at `valueStart` in `w`. */
  openParam(w: string, valueStart: number, name: string): void {
    this.to(w, valueStart)
    this.valueAt = this.bodyLength
    // `after` is set once the skipped value closed (with `firstRaw`); `skipping` is never on here,
    // as the param that set it closes before another opens
    if (this.after !== null || this.decode) return
    this.flush()
    if (this.names.length !== 1 || this.names[0] !== name) return
    // the value skipped must start at the first opening tag of the body (found by `to`)
    if (this.firstOpen !== this.bodyLength - name.length - 2) return
    this.skipping = true
  }

  /** Param `name`, whose value is `f`, closes at the closing tag found at `closeAt` in `w`. */
  closeParam(w: string, closeAt: number, name: string, f: Field): void {
    this.to(w, closeAt)
    // no pending range to flush before `after` takes over: openParam flushed before skipping
    // began, and skipping adds none
    if (this.skipping) {
      this.skipping = false
      this.firstRaw = f.value + f.trailing
      this.after = new Rope()
      return
    }
    if (this.after === null) this.spans[name] = [this.valueAt, this.bodyLength]
  }

  /** The tool closes with its closing tag at `at` in `w`: SPEC 3.5 on `params`. */
  close(w: string, at: number, params: Record<string, string>): void {
    this.to(w, at)
    this.flush()
    applyGreedy(this, params, this.names, this.decode)
  }
}
