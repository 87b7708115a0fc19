import { afterEach, describe, expect, it } from "vitest";
import { createTally, type Tally } from "../index.js";
import { UnauthorizedError } from "../shared/errors.js";

describe("API keys", () => {
  let tally: Tally;
  afterEach(() => tally.close());

  it("are stored as hashes and revoked by prefix or by the whole key, never by a look-alike", async () => {
    tally = createTally({ database: ":memory:" });
    const first = await tally.accounts.create();
    const second = await tally.accounts.createKey(first.accountId);
    const lookAlike = `${first.key.slice(0, 12)}THIS-IS-NOT-THE-KEY`;

    expect(await tally.accounts.revokeKey(lookAlike)).toBe(0);
    expect((await tally.accounts.authenticate(first.key)).id).toBe(first.accountId);

    expect(await tally.accounts.revokeKey(first.key)).toBe(1);
    await expect(tally.accounts.authenticate(first.key)).rejects.toBeInstanceOf(UnauthorizedError);
    expect((await tally.accounts.authenticate(second.key)).id).toBe(first.accountId);

    expect(await tally.accounts.revokeKey(second.prefix)).toBe(1);
    await expect(tally.accounts.authenticate(second.key)).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it("refuses a prefix too short to name a key", async () => {
    tally = createTally({ database: ":memory:" });
    await expect(tally.accounts.revokeKey("tly_")).rejects.toMatchObject({ errors: { prefix: [expect.any(String)] } });
  });
});
