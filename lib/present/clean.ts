/**
 * Display cleaning of text blocks (SPEC 7.1): what the original shows for a text block, byte for
 * byte. `cleanDisplayText` is a pure function; `TextCleaner` gives the same result for a block
 * that grows by appends, cleaning only what each append adds (the Presenter's partial updates).
 * @module
 */
import { Rope } from '../parse/rope.js'

// Tag and the one white-space character next to it: the opening tag takes the character after
// it, the closing tag the one before, so the text between keeps its own line breaks.
const STRIP: readonly (readonly [string, RegExp])[] = [
  ['<thinking>', /<thinking>\s?/g],
  ['</thinking>', /\s?<\/thinking>/g],
  ['<think>', /<think>\s?/g],
  ['</think>', /\s?<\/think>/g],
  ['<function_calls>', /<function_calls>\s?/g],
  ['</function_calls>', /\s?<\/function_calls>/g],
]

const ANY_STRIPPED = /<\/?(?:thinking|think|function_calls)>/
const TAG_NAME = /^[a-zA-Z_]+$/
const FENCE_OPENER = /```[a-zA-Z0-9_-]+$/

/**
 * The text a UI should show for a text block: `<thinking>`, `<think>` and `<function_calls>`
 * tags are removed (their contents kept), a partial tag at the very end (`Hello <read_fi`,
 * `see </thin`, a lone `<`) is cut, and on a complete block a trailing code-fence opener such as
 * ```` ```xml ```` is cut. These are the artifacts a model leaves around tool calls; showing them
 * makes the UI flicker as tags appear and vanish while streaming.
 *
 * The result equals the original implementation's for every case of
 * `conformance/present-text.cline.jsonl`, including its quirks (a cut partial tag also trims the
 * text before it; a `<` followed by something that is not a bare tag name, such as `1 < 2`, stays).
 * @group Presenter
 * @param content - the block's `content`, as parsed
 * @param partial - the block's `partial` flag: the fence opener is only cut on complete blocks,
 *   since while streaming it may still become a code block
 * @example
 * ```ts
 * import { cleanDisplayText } from 'tagstream'
 * cleanDisplayText('<thinking>plan</thinking> go', false) // 'plan go'
 * cleanDisplayText('wait <read_fi', true)                 // 'wait'
 * cleanDisplayText('Done.\n```xml', false)               // 'Done.\n'
 * ```
 */
export function cleanDisplayText(content: string, partial: boolean): string {
  let text = content
  // cheap check first: most text has no `<` at all
  if (text.includes('<')) text = cutPartialTag(stripTags(text))
  return partial ? text : cutFenceOpener(text)
}

/**
 * The last step of cleaning a complete block: `cleanDisplayText(content, false)` equals
 * `cutFenceOpener(cleanDisplayText(content, true))`, which lets the Presenter finish a block from
 * its incremental cleaner instead of cleaning the whole text again.
 * @internal
 * @group Presenter
 */
export function cutFenceOpener(text: string): string {
  if (!text.includes('```')) return text
  const trimmed = text.trimEnd()
  const m = FENCE_OPENER.exec(trimmed)
  return m === null ? text : trimmed.slice(0, trimmed.length - m[0].length)
}

/** Cuts a tag that is still being written at the end of the text (no `>` after the last `<`). */
function cutPartialTag(text: string): string {
  const lt = text.lastIndexOf('<')
  if (lt === -1 || !isPartialTag(text.slice(lt))) return text
  return text.slice(0, lt).trim()
}

/** `tail` starts with the last `<` of the text: is it a tag still being written? */
function isPartialTag(tail: string): boolean {
  if (tail.includes('>')) return false
  if (tail === '<' || tail === '</') return true
  return TAG_NAME.test((tail.startsWith('</') ? tail.slice(2) : tail.slice(1)).trim())
}

function stripTags(text: string): string {
  // one test instead of six replaces: prose has `a < b` far more often than these tags
  if (!text.includes('<') || !ANY_STRIPPED.test(text)) return text
  // in this order, each over the result of the one before (as the original): a removal may join
  // the halves of a tag that a later pass then removes
  for (const [tag, re] of STRIP) if (text.includes(tag)) text = text.replace(re, '')
  return text
}

/** JavaScript white space (`\s`, and what `trim()` removes): one UTF-16 unit. */
function isWs(c: number): boolean {
  if (c < 128) return c === 32 || (c >= 9 && c <= 13)
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029
    || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff
}

/** Length of `s` without its trailing white space (`s.trimEnd().length`), reading only that run. */
function coreEnd(s: string): number {
  let e = s.length
  while (e > 0 && isWs(s.charCodeAt(e - 1))) e--
  return e
}

/**
 * One pass of `stripTags` (one tag and its white-space character) as a stream: `feed` gives the
 * output that no later input can change, and keeps back the few characters that may still
 * belong to a match (a prefix of the tag at the end, a complete opening tag whose next character
 * is not known yet, a white-space character that may precede a closing tag). The kept part is
 * never longer than the tag plus one character, so a pass costs O(input) however the text is cut.
 */
class StripPass {
  /** Kept-back input, re-read with the next piece. */
  hold = ''

  constructor(private readonly tag: string, private readonly closing: boolean) {}

  /** The output of `hold + input` that is final; the rest becomes the new `hold`. */
  feed(input: string): string {
    return this.run(this.hold.length > 0 ? this.hold + input : input, false)
  }

  /** What `hold + input` gives if the text ends there (the pass's `replace` on the whole). */
  flush(input: string): string {
    const text = this.hold.length > 0 ? this.hold + input : input
    const save = this.hold
    const out = this.run(text, true)
    this.hold = save
    return out
  }

  private run(text: string, final: boolean): string {
    const tag = this.tag
    let out = ''
    let p = 0 // start of what is not yet in `out`
    let q = 0 // where the next search for `<` starts
    for (;;) {
      const lt = text.indexOf('<', q)
      if (lt < 0) break
      // \s?</tag>: the white space belongs to the match only if it is not part of an earlier one
      const start = this.closing && lt > p && isWs(text.charCodeAt(lt - 1)) ? lt - 1 : lt
      if (text.startsWith(tag, lt)) {
        const end = lt + tag.length
        if (!this.closing && end === text.length && !final) {
          // <tag>\s?: the next character decides whether the white space goes with it
          out += text.slice(p, lt)
          this.hold = text.slice(lt)
          return out
        }
        out += text.slice(p, start)
        p = !this.closing && end < text.length && isWs(text.charCodeAt(end)) ? end + 1 : end
        q = p
        continue
      }
      if (!final && text.length - lt < tag.length && tag.startsWith(text.slice(lt))) {
        out += text.slice(p, start)
        this.hold = text.slice(start)
        return out
      }
      q = lt + 1
    }
    if (this.closing && !final && text.length > p && isWs(text.charCodeAt(text.length - 1))) {
      // a white space at the end may precede a closing tag still to come
      out += text.slice(p, text.length - 1)
      this.hold = text.slice(text.length - 1)
      return out
    }
    this.hold = ''
    return p === 0 ? text : out + text.slice(p)
  }
}

// States of the text after the last `<`, for `isPartialTag` without reading it again.
const LT = 0 // `<`
const LT_SLASH = 1 // `</`
const LT_WS = 2 // `<` or `</`, then white space only: not a partial tag, but a name may follow
const NAME = 3 // a tag name after them
const NAME_WS = 4 // a tag name, then white space
const DEAD = 5 // anything else: this `<` is not a partial tag, whatever follows
type LtState = typeof LT | typeof LT_SLASH | typeof LT_WS | typeof NAME | typeof NAME_WS | typeof DEAD

function isNameChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95
}

/** Moves the state over `s`, which holds no `<`. O(s) until the state is DEAD, then O(1). */
function runLt(state: LtState, s: string): LtState {
  for (let i = 0; i < s.length && state !== DEAD; i++) {
    const c = s.charCodeAt(i)
    const ws = isWs(c)
    const name = isNameChar(c)
    switch (state) {
      case LT: state = c === 47 ? LT_SLASH : ws ? LT_WS : name ? NAME : DEAD; break
      case LT_SLASH:
      case LT_WS: state = ws ? LT_WS : name ? NAME : DEAD; break
      case NAME: state = name ? NAME : ws ? NAME_WS : DEAD; break
      default: state = ws ? NAME_WS : DEAD // NAME_WS
    }
  }
  return state
}

function isPartialState(s: LtState): boolean {
  return s === LT || s === LT_SLASH || s === NAME || s === NAME_WS
}

/**
 * Does every `<` of `s`, from the one at `lt` on, start no stripped tag, not even its first
 * characters: is it followed, within `s`, by a character other than `t`, `f` and `/`, or by `/`
 * and then one other than `t` and `f`? Every stripped tag starts with `<t`, `<f`, `</t` or `</f`.
 *
 * Then, in `plain` mode (no pass keeps back a `<`), no pass matches anything in `s` or keeps back
 * any of it but its trailing white space: with no removal, every pass reads the same text, so a
 * removal cannot join two halves of a tag for a later pass either (`<function_ </think>calls>`
 * is not such a text: its `</t` fails the test).
 */
function noTagStart(s: string, lt: number): boolean {
  const n = s.length
  for (let i = lt; i >= 0; i = s.indexOf('<', i + 1)) {
    let j = i + 1
    if (j < n && s.charCodeAt(j) === 47) j++ // '/'
    if (j >= n) return false // a `<` or `</` at the end: the next append may make it a tag
    const c = s.charCodeAt(j)
    if (c === 116 || c === 102) return false // 't', 'f'
  }
  return true
}

/**
 * `s.lastIndexOf('<')`, by a loop from the end: `s` is one append's worth of text, and V8's
 * `lastIndexOf` is a runtime call that costs several times as much on such short strings.
 */
function lastLt(s: string): number {
  let i = s.length - 1
  while (i >= 0 && s.charCodeAt(i) !== 60) i--
  return i
}

/**
 * Does `text`, appended to a cleaner that appends verbatim ({@link TextCleaner.appendsVerbatim}),
 * add itself as it is to the display and leave the cleaner appending verbatim? Yes for text
 * without `<`, and for text whose every `<` starts no stripped tag (`noTagStart`) and whose last
 * `<` can no longer start a partial tag, whatever follows (`a <= b`, `<br>`, `Map<string, T>`):
 * the plain path of `append` takes it, no pass keeps any of it back but trailing white space
 * (which the display shows all the same), and `commit` keeps no `<` to cut at. A `<` that is not
 * dead within `text` (`see <b`) is for the cleaner to decide. The Display keeps such text back
 * from the cleaner as it does prose (its lag): the cleaner's work is for text that may change
 * what is shown.
 * @internal
 */
export function addsVerbatim(text: string): boolean {
  const lt = text.indexOf('<')
  if (lt < 0) return true
  return noTagStart(text, lt) && runLt(LT, text.slice(lastLt(text) + 1)) === DEAD
}

/** A growing string kept as its part up to the last non-white-space character and the run after it. */
class Trimmed {
  readonly core = new Rope()
  ws = ''
  version = 0

  push(s: string): void {
    const e = coreEnd(s)
    if (e === 0) {
      this.ws += s
      return
    }
    const core = e === s.length ? s : s.slice(0, e)
    this.core.push(this.ws.length > 0 ? this.ws + core : core)
    this.ws = e === s.length ? '' : s.slice(e)
    this.version++
  }

  reset(): void {
    this.core.reset()
    this.ws = ''
    this.version++
  }
}

/** Which string the head of the last `display()` was: see {@link TextCleaner.headKind}. */
const HEAD_ALL = 0 // lead + everything
const HEAD_BODY = 1 // everything after the lead
const HEAD_BODY_TRIMMED = 2 // everything after the lead, trimmed at the end
const HEAD_BEFORE_LT = 3 // before the last `<`, trimmed
const HEAD_NONE = 4

/**
 * Display text of a partial text block that grows by appends, in time proportional to the new
 * text whatever the text holds: re-cleaning the whole block, or even the part after some
 * character, on every update is quadratic on long blocks (a stray `<` followed by pages of
 * words was the case that showed it). The output equals `cleanDisplayText(content, true)` after
 * every update.
 *
 * How: the six strip passes run as streams ({@link StripPass}), each keeping back at most a
 * tag's length; their final output `S` is kept as `lead` (its leading white space), the part
 * before its last `<` (`before`) and the part from it (`after`), each split from its trailing
 * white space, with the state of the text after that `<` (is it a partial tag?). `display()`
 * flushes the few kept-back characters through the passes and picks its result from those
 * parts; nothing is sliced or scanned again.
 * @internal
 * @group Presenter
 */
export class TextCleaner {
  private readonly passes = STRIP.map(([tag]) => new StripPass(tag, tag.startsWith('</')))
  /** Leading white space of `S` (all of it while `S` is only white space). */
  private lead = ''
  /** `S` has something besides its lead. */
  private body = false
  /** `S` after the lead and up to its last `<` (all of it if none). */
  private readonly before = new Trimmed()
  /** `S` from its last `<`. */
  private readonly after = new Trimmed()
  private hasLt = false
  private ltState: LtState = DEAD
  /**
   * The passes keep back no `<` (see `toPlain`). Then they keep nothing themselves: the white
   * space they would keep, at most three characters, is in `trailWs`.
   */
  private plain = true
  private trailWs = ''
  /** Bumped whenever `S` changes. */
  private version = 0
  /**
   * With `headVersion` and `tailPart`, identifies the last `display()` without comparing strings:
   * the same three values mean the same text. (Different values may still mean the same text.)
   */
  headKind = HEAD_NONE
  /** See `headKind`. */
  headVersion = 0
  /** What the last `display()` added after its head: a few characters at most. */
  tailPart = ''
  /**
   * The last `display()` as `F.slice(headFrom, headTo) + tailPart`, where `F` is the lead then
   * `S`'s body: a string that only grows until the next `reset` (`generation`). Two displays of
   * one generation are then compared in the time of their tails (`sameText`).
   */
  headFrom = 0
  headTo = 0
  generation = 0

  /**
   * Appending text without `<` now adds exactly that text to the end of `display()`: no pass
   * keeps back a `<` (`plain`), so none can match, and no `<` of `S` may start a partial tag
   * (`hasLt` is false once the last one is dead), so nothing is cut. Then, in that state, `lead +
   * S + trailWs` grows by the text as it is (the plain path of `append`).
   */
  get appendsVerbatim(): boolean {
    return this.plain && !this.hasLt
  }

  /** Starts over with `content` (a new block, or a change that is not an append). */
  reset(content: string): void {
    for (const p of this.passes) p.hold = ''
    this.lead = ''
    this.body = false
    this.before.reset()
    this.after.reset()
    this.hasLt = false
    this.ltState = DEAD
    this.plain = true
    this.trailWs = ''
    this.version++
    this.generation++
    this.append(content)
  }

  /**
   * Is the last `display()` the same text as an earlier one of the same length, given by its
   * `generation`, `headFrom`, `headTo` and `tailPart`? Answered from `F`'s few characters between
   * the two heads' ends, without reading the texts (comparing them after every update made a
   * long block whose display stays the same while a tag is held quadratic). Null when it cannot
   * tell this way (another generation, another start): compare the texts.
   */
  sameText(generation: number, from: number, to: number, tail: string): boolean | null {
    if (generation !== this.generation || from !== this.headFrom) return null
    const to2 = this.headTo
    const tail2 = this.tailPart
    // the same start, and F only grew: the texts agree up to the shorter head
    if (to === to2) return tail === tail2
    if (to < to2) return to2 - to <= tail.length && tail === this.slice(to, to2) + tail2
    return to - to2 <= tail2.length && tail2 === this.slice(to2, to) + tail
  }

  /** `F.slice(from, to)`: F is the lead, then before's core and blanks, then after's. */
  private slice(from: number, to: number): string {
    let out = ''
    let at = 0
    const parts: (string | Rope)[] = [this.lead, this.before.core, this.before.ws, this.after.core, this.after.ws]
    for (const part of parts) {
      const n = part.length
      if (to > at && from < at + n) out += part.slice(Math.max(from - at, 0), Math.min(to - at, n))
      at += n
    }
    return out
  }

  /**
   * No pass keeps back a `<`: the opening passes keep nothing, the closing ones at most one
   * white-space character each (the last characters of the text, if white space: the last in
   * `</thinking>`'s pass, the one before in `</think>`'s, the one before that in
   * `</function_calls>`'s). Then no pass can match before the next `<`, and the passes can be
   * skipped: their kept characters move to `trailWs`.
   */
  private toPlain(): void {
    const p = this.passes
    const h1 = p[1]!.hold
    const h3 = p[3]!.hold
    const h5 = p[5]!.hold
    // and `fromPlain` can give them back: the last of `trailWs` to the first closing pass, and
    // so on, which is how they stand unless a match broke the run
    if (p[0]!.hold.length === 0 && p[2]!.hold.length === 0 && p[4]!.hold.length === 0
      && h1.length <= 1 && h1 !== '<' && h3.length <= 1 && h3 !== '<' && h5.length <= 1 && h5 !== '<'
      && (h3.length === 0 || h1.length === 1) && (h5.length === 0 || h3.length === 1)) {
      this.plain = true
      this.trailWs = h5 + h3 + h1
      p[1]!.hold = p[3]!.hold = p[5]!.hold = ''
    }
  }

  /** Back from `plain`: each closing pass keeps its character of `trailWs` again. */
  private fromPlain(): void {
    const w = this.trailWs
    const n = w.length
    const p = this.passes
    if (n >= 1) p[1]!.hold = w[n - 1]!
    if (n >= 2) p[3]!.hold = w[n - 2]!
    if (n >= 3) p[5]!.hold = w[n - 3]!
    this.trailWs = ''
    this.plain = false
  }

  /** The block grew by `text`. */
  append(text: string): void {
    if (text.length === 0) return
    if (this.plain) {
      const lt = text.indexOf('<')
      if (lt < 0 || noTagStart(text, lt)) {
        // the common case, prose (or prose whose every `<` starts no stripped tag, such as
        // `a < b`, `<div>`, `</p>`): no pass can match, so the passes would only keep back the
        // trailing white space; doing just that is several times cheaper
        this.appendPlain(text, lt >= 0)
        return
      }
      this.fromPlain()
    }
    let x = text
    for (const pass of this.passes) {
      if (x.length === 0) break // nothing new reaches the later passes
      x = pass.feed(x)
    }
    this.toPlain()
    if (x.length > 0) this.commit(x, true)
  }

  /**
   * `append(text)` for text that {@link addsVerbatim} takes, while the cleaner appends verbatim:
   * the same result without reading the text again. The Display's lag comes here, up to a
   * hundred pieces joined, whose last `<` the general path would look for from the end, a
   * character at a time, and whose pieces its search would first copy into one string.
   */
  appendVerbatim(text: string): void {
    // every `<` of the text is dead within it, so none is kept to cut at: as if it had none
    if (text.length > 0) this.appendPlain(text, false)
  }

  /**
   * In `plain` mode, text that no pass can match: the passes would only keep back its trailing
   * white space (see `toPlain`), which goes to `trailWs`.
   */
  private appendPlain(text: string, mayHaveLt: boolean): void {
    const held = this.trailWs
    const t = text.length
    const n = held.length + t
    // the last characters are read from `text` (and `held` past its start), not from their join:
    // a cons string, which a character read makes V8 flatten (a runtime call and a copy)
    let k = 0
    while (k < 3 && k < n && isWs(k < t ? text.charCodeAt(t - 1 - k) : held.charCodeAt(n - 1 - k))) k++
    if (k === 0) {
      this.trailWs = ''
      this.commit(held.length > 0 ? held + text : text, mayHaveLt)
    } else if (k <= t) {
      this.trailWs = text.slice(t - k)
      if (n > k) this.commit(held.length > 0 ? held + text.slice(0, t - k) : text.slice(0, t - k), mayHaveLt)
    } else {
      const all = held + text
      this.trailWs = all.slice(n - k)
      if (n > k) this.commit(all.slice(0, n - k), mayHaveLt)
    }
  }

  /**
   * `s` is final output of the strip passes: add it to `S`. `mayHaveLt`: false if `s` has no `<`
   * that a later append could make a partial tag (none at all, or every one dead within `s`).
   */
  private commit(s: string, mayHaveLt: boolean): void {
    this.version++
    if (!this.body) {
      let k = 0
      while (k < s.length && isWs(s.charCodeAt(k))) k++
      if (k === s.length) {
        this.lead += s
        return
      }
      if (k > 0) {
        this.lead += s.slice(0, k)
        s = s.slice(k)
      }
      this.body = true
    }
    const lt = mayHaveLt ? lastLt(s) : -1
    if (lt < 0) {
      if (!this.hasLt) this.before.push(s)
      else {
        this.after.push(s)
        this.ltState = runLt(this.ltState, s)
        if (this.ltState === DEAD) this.fold()
      }
      return
    }
    if (this.hasLt) this.fold()
    const state = runLt(LT, s.slice(lt + 1))
    if (state === DEAD) {
      // a `<` that is no partial tag whatever follows (`a < b`, `<br>`): nothing is ever cut at it
      this.before.push(s)
      return
    }
    if (lt > 0) this.before.push(s.slice(0, lt))
    this.after.reset()
    this.after.push(lt === 0 ? s : s.slice(lt))
    this.hasLt = true
    this.ltState = state
  }

  /**
   * The last `<` of `S` can no longer start a partial tag (its state is DEAD): `after` joins
   * `before`, as if that `<` were any other character. `F` stays the same string, and a display
   * is then one piece fewer to join (most `<` of prose die within a few characters).
   */
  private fold(): void {
    const b = this.before
    const a = this.after
    // `after` starts with `<`, so it has a core
    if (b.ws.length > 0) b.core.push(b.ws)
    b.core.push(a.core.value)
    b.ws = a.ws
    b.version++
    a.reset()
    this.hasLt = false
    this.ltState = DEAD
  }

  /** Same as `cleanDisplayText(content, true)` for the content so far. */
  display(): string {
    let f = ''
    const ps = this.passes
    if (this.plain) f = this.trailWs // nothing to match: flushing gives it back
    else for (const p of ps) if (p.hold.length > 0 || f.length > 0) f = p.flush(f)
    // is the text after the last `<` of S + f a partial tag?
    let fLt = -1
    let cut = false
    if (f.length > 0 && f.includes('<')) {
      fLt = f.lastIndexOf('<')
      cut = isPartialState(runLt(LT, f.slice(fLt + 1)))
    } else if (this.hasLt) {
      cut = isPartialState(this.ltState === DEAD || f.length === 0 ? this.ltState : runLt(this.ltState, f))
    }
    if (!cut) return this.head(HEAD_ALL, this.version, f)
    if (fLt >= 0) {
      // (S + f before its last `<`).trim()
      const g = f.slice(0, fLt)
      if (!this.body) return this.head(HEAD_NONE, 0, g.trim())
      const gt = g.trimEnd()
      return gt.length > 0 ? this.head(HEAD_BODY, this.version, gt) : this.head(HEAD_BODY_TRIMMED, this.version, '')
    }
    // (S before its last `<`).trim(): the lead goes, and the white space before the `<`
    return this.head(HEAD_BEFORE_LT, this.before.version, '')
  }

  private head(kind: number, version: number, tail: string): string {
    this.headKind = kind
    this.headVersion = version
    this.tailPart = tail
    // where the head lies in F (see headFrom)
    const lead = this.lead.length
    const b = this.before
    const a = this.after
    this.headFrom = kind === HEAD_ALL || kind === HEAD_NONE ? 0 : lead
    switch (kind) {
      case HEAD_ALL:
      case HEAD_BODY: this.headTo = lead + b.core.length + b.ws.length + a.core.length + a.ws.length; break
      case HEAD_BODY_TRIMMED: this.headTo = lead + b.core.length + (this.hasLt ? b.ws.length + a.core.length : 0); break
      case HEAD_BEFORE_LT: this.headTo = lead + b.core.length; break
      default: this.headTo = 0
    }
    let s: string
    switch (kind) {
      case HEAD_ALL:
        s = this.bodyValue(false)
        if (this.lead.length > 0) s = this.lead + s
        break
      case HEAD_BODY: s = this.bodyValue(false); break
      case HEAD_BODY_TRIMMED: s = this.bodyValue(true); break
      case HEAD_BEFORE_LT: s = this.before.core.value; break
      default: s = ''
    }
    return tail.length === 0 ? s : s + tail
  }

  /** `S` after the lead, optionally without its trailing white space. */
  private bodyValue(trimEnd: boolean): string {
    const b = this.before
    if (!this.hasLt) return trimEnd || b.ws.length === 0 ? b.core.value : b.core.value + b.ws
    let s = b.core.value
    if (b.ws.length > 0) s += b.ws
    s += this.after.core.value
    return trimEnd || this.after.ws.length === 0 ? s : s + this.after.ws
  }
}
