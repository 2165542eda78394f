/** Walking a cursor-paged listing: `page(token)` for each page, its items yielded in order, until `nextPageToken` is null. */
export async function* allPages<T, P extends { nextPageToken: string | null }>(
  page: (nextPageToken?: string) => Promise<P>,
  items: (p: P) => T[],
): AsyncGenerator<T> {
  let nextPageToken: string | undefined;
  do {
    const p = await page(nextPageToken);
    yield* items(p);
    nextPageToken = p.nextPageToken ?? undefined;
  } while (nextPageToken);
}
