export const metadata = { title: "Hello" };

export default function RootLayout({ children }) {
  return (
    <html lang="en">
      <head>
        <script defer src="/analytics/script.js" />
      </head>
      <body>{children}</body>
    </html>
  );
}
