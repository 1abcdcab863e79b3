// Types of soup.mjs.
import type fc from 'fast-check'

/** One piece of tag soup: a tag of the dialect (exact or spaced), a fragment, or plain text. */
export const piece: fc.Arbitrary<string>
/** A tool call with 0–3 parameters whose values are soup; its closing tag optional. */
export const call: fc.Arbitrary<string>
/** A random message: soup pieces and whole tool calls. */
export const soup: fc.Arbitrary<string>
/** The text cut at the given points (taken modulo its length, sorted, distinct). */
export function chunksOf(text: string, cuts: number[]): string[]
/** Cut points for chunking a text of up to `max` characters. */
export function cutsUpTo(max: number): fc.Arbitrary<number[]>
