// A small thinking-block filter in JavaScript, served through
// sluice_adapter.mjs: channel mode with the default tag names, for the think
// suite; what it does not implement (options, anchored mode) it answers as
// unsupported. It works on "binary" strings (a character per byte), so
// bytes that are not UTF-8 pass through exactly.
//
//   sluice conform --suite think --impl "node conformance/adapters/examples/think_filter.mjs"
import { serve, Unsupported } from '../sluice_adapter.mjs';

const NAMES = ['thought', 'thinking', 'think', 'reasoning', 'reflection'];
// ASCII only: toLowerCase() would also fold U+212A KELVIN SIGN (here, a
// binary string never holds it, but keep the rule explicit).
const lower = (s) => s.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));

class Think {
  constructor(options) {
    const keys = Object.keys(options);
    if (keys.length > 1 || (keys.length === 1 && options.mode !== 'channel'))
      throw new Unsupported('only channel mode with the default tags');
    this.binary = true;
    this.held = '';
    this.inside = null;
    this.hidden = '';
  }
  candidates() { return this.inside ? [`</${this.inside}>`] : NAMES.map((n) => `<${n}>`); }
  route(out, part) {
    if (this.inside) { out.thought += part; this.hidden += part; } else out.text += part;
  }
  feed(text) {
    const out = { text: '', thought: '', markup: '', events: [] };
    const s = this.held + text;
    this.held = '';
    let i = 0, start = 0;
    while (i < s.length) {
      if (s[i] !== '<') { i++; continue; }
      const rest = lower(s.slice(i));
      const tag = this.candidates().find((t) => rest.startsWith(t));
      if (!tag) {
        if (this.candidates().some((t) => t.startsWith(rest))) {
          this.route(out, s.slice(start, i));
          this.held = s.slice(i);
          return out;
        }
        i++;
        continue;
      }
      this.route(out, s.slice(start, i));
      out.markup += s.slice(i, i + tag.length);
      if (this.inside) {
        out.events.push({ type: 'thought', tag: this.inside, text: this.hidden, complete: true });
        this.inside = null;
        this.hidden = '';
      } else {
        this.inside = tag.slice(1, -1);
      }
      i = start = i + tag.length;
    }
    this.route(out, s.slice(start));
    return out;
  }
  finish() {
    const out = { text: '', thought: '', events: [] };
    this.route(out, this.held);
    if (this.inside) out.events.push({ type: 'thought', tag: this.inside, text: this.hidden, complete: false });
    return out;
  }
}

serve({ think: (options) => new Think(options) });
