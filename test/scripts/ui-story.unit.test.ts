import { describe, expect, it } from 'vitest';
import { JobSpecSchema } from '../../schemas';
import { LIST_COLUMNS, readmeQueries, STORY_SPEC } from '../../scripts/ui-story';
import { SEARCH_ATTRIBUTE_DEFINITIONS } from '../../core/search-attributes';

const delegateNames = (text: string) => text.match(/\bDelegate[A-Za-z]+/g) ?? [];

describe("the Temporal UI guide's story", () => {
  it('is a job the API accepts', () => {
    expect(JobSpecSchema.safeParse(STORY_SPEC).success).toBe(true);
  });

  it('names only search attributes the workflows set, in its columns and its queries', () => {
    const used = [...LIST_COLUMNS.flatMap(delegateNames), ...readmeQueries('job/acme/x').flatMap((q) => delegateNames(q.query))];
    expect(used.length).toBeGreaterThan(5);
    for (const name of used) expect(Object.keys(SEARCH_ATTRIBUTE_DEFINITIONS)).toContain(name);
  });
});
