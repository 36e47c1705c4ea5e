// The print pages' "Print" button (a listener, not an onclick: the CSP allows no inline code).
document.addEventListener("click", (event) => {
  if (event.target.closest("[data-print]")) {
    window.print();
  }
});
