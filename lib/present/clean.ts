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

/**
 * A "barrier": a character no stripped tag, its white space, or a partial tag name can contain
 * (not white space, not a letter or `_`, not `<`, `>`, `/`). Cleaning never removes one, and no
 * rule looks across one, so the text up to a barrier can be cleaned once and for all.
 */
function isBarrier(c: number): boolean {
  if (c < 128) return BARRIER_ASCII[c] === 1
  return !(c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029
    || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff)
}

const BARRIER_ASCII = new Uint8Array(128)
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c)
  BARRIER_ASCII[c] = /[\sA-Za-z_<>/]/.test(ch) ? 0 : 1
}

/**
 * Display text of a partial text block that grows by appends, in time proportional to the new
 * text: re-cleaning the whole block on every update is quadratic on long blocks (and flattens the
 * string ropes that appends build). The output equals `cleanDisplayText(content, true)` after
 * every update; the complete block is cleaned once with `cleanDisplayText`.
 *
 * Everything up to the last barrier character (see `isBarrier`) is cleaned once and kept; only
 * the tail after it is cleaned again on each update.
 * @internal
 */
export class TextCleaner {
  /** Leading white space of the kept text: dropped when a partial tag is cut, as trim() would. */
  private lead = ''
  /** The kept text after `lead`: cleaned, and ending with a barrier. */
  private readonly prefix = new Rope()
  private tail = ''
  /** `tail` has a `<`: only then can it hold a tag to strip or a partial tag to cut. */
  private tailLt = false
  /** How many times the kept prefix grew or was reset. */
  commits = 0
  /** How many times the cleaner was reset. */
  resets = 0
  /**
   * What the tail adds to the display text of the last `display()`; with `commits` and
   * `trimmedLead`, it identifies that text without comparing whole strings.
   */
  tailPart = ''
  /** The last display text dropped the prefix's leading white space (a partial tag was cut). */
  trimmedLead = false

  /** Starts over with `content` (a new block, or a change that is not an append). */
  reset(content: string): void {
    this.lead = ''
    this.prefix.reset()
    this.tail = ''
    this.tailLt = false
    this.commits++
    this.resets++
    this.append(content)
  }

  /**
   * The block grew by `text`. Everything up to its last barrier is cleaned and kept now, while
   * `text` is a short flat string: looking for the barrier later, in a tail built by `+=`, would
   * read a cons string.
   */
  append(text: string): void {
    let j = -1
    for (let k = text.length - 1; k >= 0; k--) {
      if (isBarrier(text.charCodeAt(k))) {
        j = k
        break
      }
    }
    if (j < 0) {
      this.tail += text
      if (!this.tailLt && text.includes('<')) this.tailLt = true
      return
    }
    const upto = j === text.length - 1 ? text : text.slice(0, j + 1)
    const joined = this.tail.length > 0 ? this.tail + upto : upto
    // every tag to strip has a `<`: without one, there is nothing to look for
    const kept = this.tailLt || upto.includes('<') ? stripTags(joined) : joined
    if (this.prefix.length > 0) this.prefix.push(kept)
    else {
      // kept holds a barrier, which is not white space: the lead is all before it, and what
      // follows is never empty
      const body = kept.trimStart()
      this.lead = kept.slice(0, kept.length - body.length)
      this.prefix.push(body)
    }
    this.tail = j === text.length - 1 ? '' : text.slice(j + 1)
    this.tailLt = this.tail.includes('<')
    this.commits++
  }

  /** Same as `cleanDisplayText(content, true)` for the content so far. */
  display(): string {
    if (!this.tailLt) {
      this.tailPart = this.tail
      this.trimmedLead = false
      return this.concat(this.lead, this.tail)
    }
    const ts = stripTags(this.tail)
    // indexOf first: most tails have no '<', and lastIndexOf is slow in V8
    const lt = ts.indexOf('<') < 0 ? -1 : ts.lastIndexOf('<')
    // a `<` in the prefix is followed by the prefix's last barrier, so it is never a partial tag
    if (lt === -1 || !isPartialTag(ts.slice(lt))) {
      this.tailPart = ts
      this.trimmedLead = false
      return this.concat(this.lead, ts)
    }
    const head = ts.slice(0, lt)
    // (lead + prefix + head).trim(): the prefix ends with a barrier, which trimming never passes
    if (this.prefix.length === 0) {
      this.tailPart = head.trim()
      this.trimmedLead = false
      return this.tailPart
    }
    this.tailPart = head.trimEnd()
    this.trimmedLead = this.lead.length > 0
    return this.concat('', this.tailPart)
  }

  private concat(lead: string, tail: string): string {
    let s = this.prefix.value
    if (lead.length > 0) s = lead + s
    return tail.length > 0 ? s + tail : s
  }
}
