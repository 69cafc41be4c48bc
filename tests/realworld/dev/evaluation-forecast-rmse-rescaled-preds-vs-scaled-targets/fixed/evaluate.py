import math

import numpy as np
import torch
from sklearn.metrics import mean_squared_error


@torch.no_grad()
def predict(model, x, batch_size=256):
    model.eval()
    outs = []
    for start in range(0, len(x), batch_size):
        xb = torch.tensor(x[start:start + batch_size], dtype=torch.float32)[..., None]
        outs.append(model(xb).numpy())
    return np.concatenate(outs)


def report(model, arrays, scaler):
    train_predict = predict(model, arrays["x_train"])
    test_predict = predict(model, arrays["x_test"])

    train_predict = scaler.inverse_transform(train_predict)
    test_predict = scaler.inverse_transform(test_predict)

    y_train = scaler.inverse_transform(arrays["y_train"].reshape(-1, 1))
    y_test = scaler.inverse_transform(arrays["y_test"].reshape(-1, 1))

    train_rmse = math.sqrt(mean_squared_error(y_train, train_predict))
    test_rmse = math.sqrt(mean_squared_error(y_test, test_predict))
    print(f"train RMSE {train_rmse:.3f}   test RMSE {test_rmse:.3f}")
    return train_predict, test_predict
