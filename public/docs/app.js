window.ui = SwaggerUIBundle({ url: "/v1/openapi.json", dom_id: "#reference", deepLinking: true, tryItOutEnabled: true });
