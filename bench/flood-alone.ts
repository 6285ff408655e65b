import { loadavg } from 'node:os';
import { FULL_FLOOD, measureFlood } from './flood.js';
import { EXPORTER_MAIN } from './exporter-process.js';
import { scaledState } from './states.js';

// The flood phase alone, for the build BENCH_EXPORTER_MAIN names (default: this tree's dist/): run it
// alternately for two builds to compare them on a shared machine. Prints one JSON line.
const load = loadavg()[0]!;
const figures = await measureFlood(scaledState(100), FULL_FLOOD);
const mb = (bytes: number): number => +(bytes / 2 ** 20).toFixed(1);
console.log(
  JSON.stringify({
    main: EXPORTER_MAIN,
    loadAverage: [load, loadavg()[0]!].map((l) => +l.toFixed(2)),
    bodyBytes: figures.bodyBytes,
    windows: figures.windows.map((w) => `${w.fromSeconds}s:${w.answered ? 'ok' : 'MISSED'}:${w.worstMs}`),
    worstMs: figures.worstMs,
    scrapes: figures.scrapes.map((s) => `${s.atMs}+${s.ms}${s.status === 200 ? '' : `(${s.status})`}`),
    rssBeforeMB: mb(figures.rssBeforeBytes),
    peakRssMB: mb(figures.peakRssBytes),
    rssAfterMB: mb(figures.rssAfterBytes),
    attackersHeld: figures.attackersHeld,
  }),
);
