/**
 * Internalized strings: one V8 string object per distinct text.
 * @internal
 * @module
 */

/**
 * `s`, as the one string object that V8 keeps for its text (the form of every property name).
 * Two internalized strings are compared by identity alone; comparing a string made by `+` with
 * another takes a call to V8's StringEqual builtin, even when both are the same object. A
 * consumer compares a diff's `path` with the last one on every append (the Presenter's Snapshot),
 * and `'params.' + name` makes a new one at each param. Allocates an object and an array: call it
 * once per value, not per chunk. (Not for a string that is an array index, such as `'7'`: V8 keeps
 * such a key as a number, and `Object.keys` makes its string anew. A computed `'__proto__'` key is
 * an own property, so any other string comes back as itself.)
 */
export function intern(s: string): string {
  return Object.keys({ [s]: 0 })[0]!
}
