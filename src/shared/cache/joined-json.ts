/**
 * Items' JSON joined by commas once, with where each item's begins: the items [from, to) of a
 * page are one slice of the text, which V8 does not copy (a sliced string over the whole). What
 * a kept day or history (KeptReads) holds, so a page costs no string per item.
 */
export class JoinedJson {
  readonly text: string;
  /** Where item i begins in text; the last entry is text's length + 1. */
  private readonly starts: Uint32Array;

  constructor(items: readonly string[]) {
    this.starts = new Uint32Array(items.length + 1);
    let at = 0;
    for (let i = 0; i < items.length; i++) {
      this.starts[i] = at;
      at += items[i]!.length + 1;
    }
    this.starts[items.length] = at;
    this.text = items.join(',');
  }

  /** Items [from, to) joined by commas ('' when none). */
  slice(from: number, to: number): string {
    return from < to ? this.text.slice(this.starts[from], this.starts[to]! - 1) : '';
  }

  /** What it holds, in bytes (about). */
  get byteSize(): number {
    return this.text.length + this.starts.byteLength;
  }
}
