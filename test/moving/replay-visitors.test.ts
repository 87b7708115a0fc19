import Database from "better-sqlite3";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { DIALECTS } from "../support/databases.js";
import { importFixture } from "./support.js";

describe.each(DIALECTS)("an import's visitor rows on %s", (dialect) => {
  const fixture = importFixture(dialect);

  async function write(text: string): Promise<void> {
    const { url } = fixture.stored;
    if (dialect === "sqlite") {
      const db = new Database(url.replace(/^file:/, ""));
      try {
        db.exec(text);
      } finally {
        db.close();
      }
      return;
    }
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
  }

  it("survive the salt rotation of live traffic (another process's too) while the import runs", async () => {
    const { tally } = fixture.stored;
    const website = await tally.websites.create(fixture.accountId, { domain: "rotation.example" });
    const columns = "hash, website_id, day, last_seen, visit_referrer, visit_campaign, seen";
    await write(
      `insert into visitors (${columns}) values ('~7:importedvisitor', ${website.id}, '2024-01-01', 1, '', '', ''), ('livevisitorofold', ${website.id}, '2024-01-01', 1, '', '', '')`,
    );
    // A live hit: its flush rotates salts, deleting visitor rows older than three days.
    await tally.collect({
      url: "https://rotation.example/",
      ip: "198.51.100.9",
      userAgent: "Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0",
    });
    await tally.flush();
    const hashes = (await fixture.stored.sql<{ hash: string }>(`select hash from visitors where day = '2024-01-01' order by hash`)).map(
      (row) => row.hash,
    );
    expect(hashes).toEqual(["~7:importedvisitor"]);
  });
});
