// The weight of the real client's application (the `load` setting's pageWeight): a script heap of
// live objects, a large DOM and a crowd of timers that keep touching both, sized per platform to the
// figures in docs/platform-landmarks.md ("Page weight"). The DOM sits in a layer behind the page's
// own screens, takes no clicks, and holds no role, label or word a bot looks for.

/** Per platform: JS heap kept alive (MiB), DOM elements, timers and how often they fire. */
export const PAGE_WEIGHT = {
  google_meet: { heapMiB: 120, domElements: 6000, timers: 40, timerMs: 250 },
  teams: { heapMiB: 200, domElements: 9000, timers: 60, timerMs: 250 },
};

/**
 * About how many bytes one retained record costs on Chromium's V8 heap (object, its string, its
 * nested object, array slot), measured: Chromium builds V8 with pointer compression, so each
 * reference is 4 bytes (Node's V8, without it, takes 128). 160 here left the heap at half its size.
 */
const RECORD_BYTES = 75;
const WORDS = ['alpha', 'delta', 'gamma', 'omega', 'sigma', 'theta', 'kappa', 'lambda'];

export class PageWeight {
  constructor(platform) {
    const weight = PAGE_WEIGHT[platform] ?? PAGE_WEIGHT.google_meet;
    this.weight = weight;
    // The heap: records of the kind an application keeps (ids, strings, nested objects).
    const count = Math.round((weight.heapMiB * 1024 * 1024) / RECORD_BYTES);
    this.records = new Array(count);
    for (let i = 0; i < count; i += 1) {
      this.records[i] = {
        id: i,
        key: `r${i.toString(36)}-${WORDS[i % WORDS.length]}`,
        meta: { seen: 0, at: i * 7 },
      };
    }
    // The DOM: nested rows of spans, as a large client's sidebars, rosters and menus are.
    this.layer = document.createElement('div');
    this.layer.setAttribute('data-sim', 'page-weight');
    this.layer.setAttribute('aria-hidden', 'true');
    this.layer.style.cssText =
      'position:fixed;inset:0;z-index:-2;overflow:hidden;pointer-events:none;font:10px sans-serif;color:#8881';
    this.cells = [];
    let made = 0;
    while (made < weight.domElements) {
      const row = document.createElement('div');
      row.className = 'pw-row';
      made += 1;
      for (let j = 0; j < 9 && made < weight.domElements; j += 1) {
        const cell = document.createElement('span');
        cell.className = 'pw-cell';
        cell.textContent = WORDS[(made + j) % WORDS.length];
        row.append(cell);
        this.cells.push(cell);
        made += 1;
      }
      this.layer.append(row);
    }
    document.body.append(this.layer);
    // The timers: each reads and updates a slice of the heap and now and then a cell's text.
    this.timers = [];
    let tick = 0;
    for (let k = 0; k < weight.timers; k += 1) {
      this.timers.push(
        setInterval(
          () => {
            tick += 1;
            const start = (tick * 997 + k * 131) % this.records.length;
            for (let i = 0; i < 500; i += 1) {
              const record = this.records[(start + i) % this.records.length];
              record.meta.seen += 1;
            }
            if (tick % 4 === 0) {
              const cell = this.cells[(tick + k) % this.cells.length];
              cell.textContent = WORDS[tick % WORDS.length];
            }
          },
          weight.timerMs + k * 10,
        ),
      );
    }
  }
}
