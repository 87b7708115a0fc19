// Tally inside a NestJS app (docs/guide/nestjs.md): the API under /analytics/api/v1 through the
// app's own sign-in, server-side pageviews of the app's pages, the tracker on them, and a
// purchase recorded in the app's own transaction.
import "reflect-metadata";
import { Body, Controller, Get, Header, Inject, Module, Post, Req } from "@nestjs/common";
import { NestFactory } from "@nestjs/core";
import type { Tally } from "@tally-analytics/core";
import Database from "better-sqlite3";
import type { Request } from "express";
import { AnalyticsModule, TALLY } from "./analytics.module.js";

@Controller()
class ShopController {
  // The app's own handle on Tally's database file, for its orders.
  private readonly db = new Database("data/tally.sqlite");
  constructor(@Inject(TALLY) private readonly tally: Tally) {
    this.db.pragma("busy_timeout = 5000");
    this.db.exec("create table if not exists orders (id integer primary key, total integer not null)");
  }

  @Get()
  @Header("content-type", "text/html")
  home() {
    return '<h1>Hello</h1><script defer src="/analytics/script.js"></script>';
  }

  // The order and its Purchase event in one transaction: both commit or neither.
  @Post("checkout")
  async checkout(@Body() body: { total: number }, @Req() req: Request) {
    this.db.exec("begin");
    try {
      const order = this.db.prepare("insert into orders (total) values (?)").run(body.total);
      await this.tally.record("Purchase", {
        trx: this.db,
        props: { amount: body.total },
        url: `${req.protocol}://${req.get("host")}${req.originalUrl}`,
        ip: req.socket.remoteAddress,
        userAgent: req.get("user-agent") ?? "",
      });
      this.db.exec("commit");
      return { order: Number(order.lastInsertRowid) };
    } catch (error) {
      this.db.exec("rollback");
      throw error;
    }
  }
}

@Module({ imports: [AnalyticsModule], controllers: [ShopController] })
class AppModule {}

const app = await NestFactory.create(AppModule, { logger: ["error", "warn"] });
app.enableShutdownHooks();
await app.listen(Number(process.env.PORT ?? 3000), process.env.HOST ?? "127.0.0.1");
console.log(`Listening on ${(await app.getUrl()).replace("[::1]", "127.0.0.1")} (API: /analytics/api/v1)`);
