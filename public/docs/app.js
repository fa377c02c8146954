// validatorUrl: null keeps the page offline: by default the viewer fetches a badge from validator.swagger.io.
window.ui = SwaggerUIBundle({ url: "/v1/openapi.json", dom_id: "#reference", deepLinking: true, tryItOutEnabled: true, validatorUrl: null });
