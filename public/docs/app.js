// validatorUrl: null keeps the page offline: by default the viewer fetches a badge from validator.swagger.io.
window.ui = SwaggerUIBundle({ url: "/v1/openapi.json", dom_id: "#reference", deepLinking: true, tryItOutEnabled: true, validatorUrl: null });

// The guides live in the repository (docs/*.md); guides.json lists them and public/docs/guides/ has their text (scripts/prepare-docs.mjs).
fetch("/docs/guides.json")
  .then((response) => (response.ok ? response.json() : []))
  .then((guides) => {
    if (!guides.length) return;
    const list = document.getElementById("guides-list");
    // Each guide by its title, a link to its text; its file in the repository beside it.
    for (const guide of guides) {
      const item = document.createElement("li");
      const link = document.createElement("a");
      link.href = guide.url;
      link.textContent = guide.title;
      const path = document.createElement("code");
      path.textContent = guide.path;
      item.append(link, " (", path, ")");
      list.append(item);
    }
    document.getElementById("guides").hidden = false;
  })
  .catch(() => {});
