import { Injectable } from "@nestjs/common";

/** The app's own sign-in, cut down to a cookie (yours looks a session up): account 1's owner. */
@Injectable()
export class SessionService {
  accountOf(cookie: string | null): number | null {
    return /(?:^|;\s*)session=owner(?:;|$)/.test(cookie ?? "") ? 1 : null;
  }
}
