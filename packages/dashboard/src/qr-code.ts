// A QR code of a two-factor set-up's otpauth link, drawn here (uqr encodes it): the phone's
// authenticator app scans it, and the secret never leaves the page for another server.
import { encode } from "uqr";
import { svg } from "./dom.js";

/** The code as one SVG path, a unit per module, with the quiet zone QR readers expect. */
export function qrCode(text: string, label: string): SVGSVGElement {
  const { data, size } = encode(text, { ecc: "M", border: 4 });
  let d = "";
  data.forEach((row, y) => row.forEach((dark, x) => dark && (d += `M${x} ${y}h1v1h-1z`)));
  return svg(
    "svg",
    { class: "qr-code", viewBox: `0 0 ${size} ${size}`, role: "img", "aria-label": label, "shape-rendering": "crispEdges" },
    svg("path", { d }),
  );
}
