// Tally as a Nest module: the instance is a provider (closed with the app), its handler a
// middleware under /analytics whose sign-in is the app's own SessionService, and every
// page the app serves counted server-side.
import {
  Inject,
  Injectable,
  Module,
  type MiddlewareConsumer,
  type NestMiddleware,
  type NestModule,
  type OnApplicationShutdown,
} from "@nestjs/common";
import { createTally, type Tally } from "@tally-analytics/core";
import { countPageviews, toNodeHandler, type NodeHandler } from "@tally-analytics/server/node";
import type { IncomingMessage, ServerResponse } from "node:http";
import { SessionService } from "./session.service.js";

export const TALLY = Symbol("Tally");

async function openTally(): Promise<Tally> {
  const tally = createTally({ database: "file:./data/tally.sqlite" });
  if ((await tally.accounts.count()) === 0) {
    const { accountId } = await tally.accounts.create({ name: "example" });
    await tally.websites.create(accountId, { domain: "127.0.0.1" }); // this page, as it runs here
  }
  return tally;
}

@Injectable()
class AnalyticsMiddleware implements NestMiddleware {
  private readonly handler: NodeHandler;
  constructor(@Inject(TALLY) tally: Tally, @Inject(SessionService) sessions: SessionService) {
    // `authenticate` gets a fetch Request: the session cookie is request.headers.get("cookie").
    this.handler = toNodeHandler(tally, { authenticate: (request) => sessions.accountOf(request.headers.get("cookie")) });
  }
  use(req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) {
    this.handler(req, res, next);
  }
}

@Injectable()
class PageviewMiddleware implements NestMiddleware {
  readonly use: NodeHandler;
  constructor(@Inject(TALLY) tally: Tally) {
    this.use = countPageviews(tally, { exclude: ["/analytics"] });
  }
}

@Module({
  providers: [{ provide: TALLY, useFactory: openTally }, SessionService, AnalyticsMiddleware, PageviewMiddleware],
  exports: [TALLY],
})
export class AnalyticsModule implements NestModule, OnApplicationShutdown {
  constructor(@Inject(TALLY) private readonly tally: Tally) {}
  configure(consumer: MiddlewareConsumer) {
    consumer.apply(AnalyticsMiddleware).forRoutes("analytics");
    consumer.apply(PageviewMiddleware).forRoutes("{*path}");
  }
  onApplicationShutdown() {
    return this.tally.close();
  }
}
