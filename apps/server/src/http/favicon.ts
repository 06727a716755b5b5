/**
 * The server's icon, on every HTML page it serves (the dashboard's and /docs): a play triangle in
 * the accent blue. Every page names it, so no /favicon.ico request has to be answered with a 404.
 */
export const SERVER_FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1f5fbf"/><path d="M12 9v14l11-7z" fill="#fff"/></svg>
`;
