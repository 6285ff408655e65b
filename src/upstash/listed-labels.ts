import type { z } from 'zod';
import type { EventList } from './event-paths.js';
import type { PagedList } from './pager.js';
import { entryObject } from './tolerance.js';

// An application's own labels on its messages and runs (`Upstash-Label`): an event's `labels` array,
// or, where it has none, its older `label` string as one value. They may be anything the application
// chose (a customer's name), so only the values an entry lists are ever taken from them, compared
// as the page is read (docs/metrics.md, Your own labels): any other value never reaches an object of
// ours.

/** An entry and the listed labels it carries (absent when none). */
export type Labelled<T> = T & { readonly labels?: readonly string[] };

/**
 * Of an event's `labels` (or, without a non-empty `labels` array, its `label` string), the values in
 * `allowed`, once each, in the list's order; undefined when none is listed. A wrong type is no label.
 */
export function listedLabels(raw: unknown, allowed: readonly string[]): readonly string[] | undefined {
  if (allowed.length === 0) return undefined;
  const entry = entryObject(raw);
  if (entry === undefined) return undefined;
  const { labels, label } = entry;
  // An empty `labels` is no labels: the older `label` then speaks.
  const carried: readonly unknown[] =
    Array.isArray(labels) && labels.length > 0 ? labels : label === undefined ? [] : [label];
  if (carried.length === 0) return undefined;
  const found = allowed.filter((value) => carried.includes(value));
  return found.length === 0 ? undefined : found;
}

/**
 * `list` whose entries, read by hand, also carry the values of `allowed` they are labelled with. An
 * entry the hand reader refuses goes to the schema, which fails it (schema.ts): none is kept from there.
 */
export function withListedLabels<S extends z.ZodType<object>, T extends object>(
  list: EventList<S, T>,
  allowed: readonly string[],
): EventList<S, Labelled<T>> {
  if (allowed.length === 0) return list;
  const labelled = (pages: PagedList<S, T>): PagedList<S, Labelled<T>> => {
    const { read } = pages;
    if (read === undefined) throw new Error(`${pages.path}: an event list is read by hand`);
    return {
      ...pages,
      read: (raw, rejected) => {
        const entry = read(raw, rejected);
        if (entry === undefined) return undefined;
        const labels = listedLabels(raw, allowed);
        return labels === undefined ? entry : { ...entry, labels };
      },
    };
  };
  return { documented: labelled(list.documented), sdk: labelled(list.sdk) };
}
