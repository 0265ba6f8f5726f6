/* Contact forms that answer in place: each form is sent with fetch to the feedback route named in
   its data-forms-feedback attribute, and the answer is shown in the form (the status class, each
   invalid field's message beside it, the message in the response output, which is role="alert").
   Without this script the form posts to its own page, which shows the same result. */
(function () {
  "use strict";

  // The form's class and data-status for each status of a feedback answer.
  var STATUS_CLASSES = {
    init: "init", validation_failed: "invalid", acceptance_missing: "unaccepted", spam: "spam",
    aborted: "aborted", mail_sent: "sent", mail_failed: "failed", error: "failed", submitting: "submitting",
    resetting: "resetting"
  };
  var KNOWN_CLASSES = Object.keys(STATUS_CLASSES).map(function (key) { return STATUS_CLASSES[key]; })
    .concat(["failed"]);
  var NETWORK_FAILURE = "The form could not be sent. Please check your connection and try again.";

  function statusClass(status) {
    if (Object.prototype.hasOwnProperty.call(STATUS_CLASSES, status)) {
      return STATUS_CLASSES[status];
    }
    var custom = String(status || "").replace(/[^0-9a-z]+/gi, "-").replace(/^-+|-+$/g, "");
    return custom ? "custom-" + custom : "failed";
  }

  function setStatus(form, status) {
    var previous = form.getAttribute("data-status");
    var next = statusClass(status);
    KNOWN_CLASSES.forEach(function (name) { form.classList.remove(name); });
    if (previous) {
      form.classList.remove(previous);
    }
    form.classList.add(next);
    form.setAttribute("data-status", next);
    if (previous !== next) {
      form.dispatchEvent(new CustomEvent("forms:statuschanged", { bubbles: true, detail: { status: next } }));
    }
  }

  function responseOutput(form) {
    return form.querySelector(".forms-response-output");
  }

  function clearResponse(form) {
    form.querySelectorAll(".forms-not-valid-tip").forEach(function (tip) { tip.remove(); });
    form.querySelectorAll(".forms-form-control").forEach(function (control) {
      control.classList.remove("forms-not-valid");
      if (control.hasAttribute("aria-invalid")) {
        control.setAttribute("aria-invalid", "false");
      }
      control.removeAttribute("aria-describedby");
    });
    var output = responseOutput(form);
    if (output) {
      output.textContent = "";
    }
  }

  function wrapOf(form, field) {
    var wraps = form.querySelectorAll(".forms-form-control-wrap");
    for (var index = 0; index < wraps.length; index += 1) {
      if (wraps[index].getAttribute("data-name") === field) {
        return wraps[index];
      }
    }
    return null;
  }

  function showInvalidField(form, error) {
    var wrap = wrapOf(form, error.field);
    if (!wrap) {
      return;
    }
    var control = wrap.querySelector(".forms-form-control");
    if (control) {
      control.classList.add("forms-not-valid");
      control.setAttribute("aria-invalid", "true");
      control.setAttribute("aria-describedby", error.error_id);
    }
    var tip = document.createElement("span");
    tip.className = "forms-not-valid-tip";
    tip.id = error.error_id;
    tip.textContent = error.message;
    wrap.appendChild(tip);
  }

  // A fresh quiz question (and its signed answer) comes with every answer: the old one is used up.
  function refill(form, answer) {
    var quiz = answer.quiz || {};
    Object.keys(quiz).forEach(function (name) {
      var wrap = wrapOf(form, name);
      if (!wrap) {
        return;
      }
      var label = wrap.querySelector(".forms-quiz-label");
      if (label) {
        label.textContent = quiz[name][0];
      }
      var hidden = form.querySelector('input[type="hidden"][name="_forms_quiz_answer_' + name + '"]');
      if (hidden) {
        hidden.value = quiz[name][1];
      }
      var input = wrap.querySelector("input.forms-quiz");
      if (input) {
        input.value = "";
      }
    });
  }

  function showAnswer(form, answer) {
    setStatus(form, answer.status);
    (answer.invalid_fields || []).forEach(function (error) { showInvalidField(form, error); });
    var output = responseOutput(form);
    if (output) {
      output.textContent = answer.message || "";
    }
    if (answer.status === "mail_sent") {
      setStatus(form, "resetting");
      form.reset();
      setStatus(form, "mail_sent");
    } else {
      var first = form.querySelector(".forms-not-valid");
      if (first && typeof first.focus === "function") {
        first.focus();
      }
    }
    refill(form, answer);
    form.dispatchEvent(new CustomEvent("forms:answered", { bubbles: true, detail: answer }));
  }

  function submitButtons(form) {
    return Array.prototype.slice.call(form.querySelectorAll('[type="submit"]'));
  }

  function send(form) {
    var buttons = submitButtons(form);
    clearResponse(form);
    setStatus(form, "submitting");
    form.setAttribute("aria-busy", "true");
    buttons.forEach(function (button) { button.disabled = true; });
    var finish = function () {
      form.removeAttribute("aria-busy");
      buttons.forEach(function (button) { button.disabled = false; });
    };
    fetch(form.getAttribute("data-forms-feedback"), {
      method: "POST",
      body: new FormData(form),
      headers: { Accept: "application/json" },
      credentials: "same-origin"
    }).then(function (response) {
      return response.json().then(function (answer) {
        if (!response.ok || !answer || typeof answer.status !== "string") {
          // A refusal before the form was processed (rate limit, too large): its message, as failed.
          return { status: "mail_failed", message: (answer && answer.message) || NETWORK_FAILURE,
                   invalid_fields: [] };
        }
        return answer;
      });
    }).then(function (answer) {
      finish();
      showAnswer(form, answer);
    }).catch(function () {
      finish();
      showAnswer(form, { status: "mail_failed", message: NETWORK_FAILURE, invalid_fields: [] });
    });
  }

  function setUp(form) {
    if (form.getAttribute("data-forms-ready") === "true" || !form.getAttribute("data-forms-feedback") ||
        typeof window.fetch !== "function" || typeof window.FormData !== "function") {
      return;
    }
    form.setAttribute("data-forms-ready", "true");
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      if (form.getAttribute("data-status") !== "submitting") {
        send(form);
      }
    });
  }

  function setUpAll() {
    document.querySelectorAll("form.forms-form").forEach(setUp);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUpAll);
  } else {
    setUpAll();
  }
}());
