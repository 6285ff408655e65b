import type { Format } from '../metrics/exposition.js';

/** The Content-Type of each exposition format. */
export const CONTENT_TYPES: Record<Format, string> = {
  text: 'text/plain; version=0.0.4; charset=utf-8',
  openmetrics: 'application/openmetrics-text; version=1.0.0; charset=utf-8',
};

/**
 * OpenMetrics when the Accept header prefers it (by q-value; Prometheus sends both with weights),
 * the text format 0.0.4 otherwise.
 */
export function negotiateFormat(accept: string | undefined): Format {
  if (accept === undefined) return 'text';
  let openMetrics = -1;
  let text = -1;
  for (const part of accept.split(',')) {
    const [type = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const qParam = params.find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (Number.isNaN(q)) continue;
    if (type === 'application/openmetrics-text') openMetrics = Math.max(openMetrics, q);
    else if (type === 'text/plain' || type === '*/*' || type === 'text/*') text = Math.max(text, q);
  }
  return openMetrics > 0 && openMetrics >= text ? 'openmetrics' : 'text';
}

/** Whether the Accept-Encoding header takes gzip (listed, and not with `q=0`). */
export function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined) return false;
  return header.split(',').some((part) => {
    const [coding = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    return coding === 'gzip' && !params.some((p) => /^q=0(\.0*)?$/.test(p));
  });
}
