// Reading the admin API's answers in the editors (docs/admin-api.md). Errors come in the OpenAI
// shape {error: {message, param}}; `param` names the offending field ("keys[2].rpm").
.pragma library

function ok(status) {
    return status >= 200 && status < 300
}

// The reason to show in the form: the API's message, else the status.
function errorText(status, reply) {
    if (ok(status))
        return ""
    if (reply && typeof reply === "object" && reply.error && reply.error.message)
        return reply.error.message
    if (typeof reply === "string" && reply.length > 0)
        return reply
    return qsTr("The gateway refused the change (HTTP %1).").arg(status)
}

// The field the API named as the problem, or "".
function errorField(reply) {
    return reply && typeof reply === "object" && reply.error && reply.error.param ? String(reply.error.param) : ""
}

// Path segment for an id that may contain '/': the admin API takes model ids with slashes as is,
// other characters are percent-encoded.
function idPath(id) {
    return String(id).split("/").map(encodeURIComponent).join("/")
}
