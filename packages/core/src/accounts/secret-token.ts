import { randomBytes } from "node:crypto";
import { hashApiKey } from "./api-key.js";

/** A random bearer secret (sessions, invitations, resets): 32 bytes, base64url. Only its SHA-256 is stored. */
export const newSecretToken = (): string => randomBytes(32).toString("base64url");

/** The stored form of a token: it is already 256 random bits, so a fast hash is enough (nothing to guess from it). */
export const tokenId = (token: string): string => hashApiKey(token);
